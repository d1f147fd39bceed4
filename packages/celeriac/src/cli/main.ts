#!/usr/bin/env node
/** The `celeriac` command line. */
import 'reflect-metadata';
import { Command } from 'commander';
import { appBeforeCommand } from './app-option';
import { exitQuietlyOnClosedOutput } from './closed-output';
import { beatCommand } from './beat-command';
import { dashboardCommand } from './dashboard-command';
import { deadCommand } from './dead-command';
import { controlCommand, inspectCommand } from './inspect-command';
import { queueCommand } from './queue-command';
import { statusCommand } from './status-command';
import { callCommand, resultCommand, revokeCommand } from './task-commands';
import { eventsCommand } from './events-command';
import { failedCommand } from './failed-command';
import { workerCommand } from './worker-command';

exitQuietlyOnClosedOutput();
// Tracebacks of an app compiled with source maps point at its .ts lines (as `--enable-source-maps`
// does; pool children turn it on too). Costs nothing for code without maps.
process.setSourceMapsEnabled(true);

const program = appBeforeCommand(new Command('celeriac'))
  .description(
    'Distributed tasks for TypeScript: run workers and the periodic-task scheduler, inspect and steer them, tend ' +
      'queues and dead letters, and serve the web dashboard.',
  )
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json lies outside the compiled sources
  .version((require('../../package.json') as { version: string }).version)
  .addCommand(workerCommand())
  .addCommand(beatCommand())
  .addCommand(deadCommand())
  .addCommand(statusCommand())
  .addCommand(inspectCommand())
  .addCommand(controlCommand())
  .addCommand(queueCommand())
  .addCommand(resultCommand())
  .addCommand(revokeCommand())
  .addCommand(callCommand())
  .addCommand(eventsCommand())
  .addCommand(failedCommand())
  .addCommand(dashboardCommand());

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
