/**
 * What `celeriac failed` and `celeriac dead` share: the app loaded from `-A`, paging for `list`, and
 * subcommands that change the entries given by id or `--all` (so that a missing id never turns into
 * "every entry"), which exit 1 when some of the ids given were not there.
 */
import type { LoadedApp } from '@celeriac/worker/internal';
import type { Command } from 'commander';
import { loadAppOrExit } from './load';
import { createLogger } from './logger';
import { wholeNumber } from './parse';
import { withApp } from './with-app';

/** Flags every registry subcommand has. */
export interface RegistryFlags {
  app: string;
}

/** Flags of a subcommand that changes entries. */
export interface ChangeFlags extends RegistryFlags {
  all?: boolean;
}

/** A subcommand that changes entries of a registry (retry, requeue, discard). */
export interface ChangeSpec<F extends ChangeFlags> {
  /** The registry's command (`failed`, `dead`), naming its logger. */
  readonly registry: string;
  /** The help of the subcommand, and of its `[ids...]` argument and `--all` option. */
  readonly description: string;
  readonly idsHelp: string;
  readonly allHelp: string;
  /** Changes the entries; resolves with how many it changed. */
  change(app: LoadedApp, ids: string[] | 'all', flags: F): Promise<number>;
  /** Prints the outcome. */
  report(count: number, flags: F): void;
  /** Why `missing` of the ids given were not changed. */
  missing(missing: number, flags: F): string;
}

/** Loads the app of `-A` (exit code 2 when it cannot) and runs `work` on it. */
export function withRegistryApp(
  registry: string,
  specifier: string,
  work: (app: LoadedApp) => Promise<void>,
): Promise<void> {
  return withApp(loadAppOrExit(specifier, createLogger({ level: 'warn', json: false, name: registry })), work);
}

/** Adds `--offset` and `--limit` to a `list` subcommand. */
export function pagingOptions(command: Command): Command {
  return command
    .option('--offset <n>', 'skip this many', wholeNumber, 0)
    .option('--limit <n>', 'show at most this many', wholeNumber, 100);
}

/** Makes `command` (its options already added) a subcommand that changes the entries given. */
export function changeCommand<F extends ChangeFlags>(command: Command, spec: ChangeSpec<F>): Command {
  const name = command.name();
  return command
    .description(spec.description)
    .argument('[ids...]', spec.idsHelp)
    .option('--all', spec.allHelp)
    .action((ids: string[], flags: F) =>
      withRegistryApp(spec.registry, flags.app, async (app) => {
        if (Boolean(flags.all) === ids.length > 0) throw new Error(`Give the ids to ${name}, or --all (not both).`);
        const count = await spec.change(app, flags.all ? 'all' : ids, flags);
        spec.report(count, flags);
        // Ids that were not there (mistyped, or already handled) are worth knowing about.
        if (!flags.all && count < ids.length) {
          console.error(spec.missing(ids.length - count, flags));
          process.exitCode = 1;
        }
      }),
    );
}
