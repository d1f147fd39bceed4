#!/usr/bin/env node
/** The `celeriac` command line. */
import 'reflect-metadata';
import { Command } from 'commander';
import { beatCommand } from './beat-command';
import { deadCommand } from './dead-command';
import { eventsCommand } from './events-command';
import { failedCommand } from './failed-command';
import { workerCommand } from './worker-command';

const program = new Command('celeriac')
  .description('Distributed tasks for TypeScript: run workers and the periodic-task scheduler, and tend dead letters.')
  .version((require('../../package.json') as { version: string }).version)
  .addCommand(workerCommand())
  .addCommand(beatCommand())
  .addCommand(deadCommand())
  .addCommand(eventsCommand())
  .addCommand(failedCommand());

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
