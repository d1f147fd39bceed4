/**
 * The `-A, --app <module>` option: given after the command (`celeriac worker -A ./dist/tasks`),
 * before it as Celery takes it (`celeriac -A ./dist/tasks worker`), or by `CELERIAC_APP`.
 */
import { Option, type Command } from 'commander';

/** The environment variable read when `-A` is not given. */
export const APP_ENV = 'CELERIAC_APP';

/** A command's `-A`: required, unless `CELERIAC_APP` or a `-A` before the command gives it. */
export function appOption(description = 'the module that creates and exports the app'): Option {
  return new Option('-A, --app <module>', `${description}: a file, or a folder or name as Node resolves it`)
    .env(APP_ENV)
    .makeOptionMandatory();
}

/**
 * Lets `-A` come before the command: the program takes it, and hands it to the command run (and
 * that command's own subcommands), where an `-A` after the command still wins.
 */
export function appBeforeCommand(program: Command): Command {
  return program
    .addOption(new Option('-A, --app <module>', `the app module, for any command (or set ${APP_ENV})`))
    .enablePositionalOptions()
    .hook('preSubcommand', (_program, command) => {
      const app = program.opts<{ app?: string }>().app;
      if (app !== undefined) handDown(command, app);
    });
}

function handDown(command: Command, app: string): void {
  if (command.options.some((option) => option.attributeName() === 'app'))
    command.setOptionValueWithSource('app', app, 'cli');
  for (const subcommand of command.commands) handDown(subcommand, app);
}
