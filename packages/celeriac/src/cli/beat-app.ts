/** Loads the `-A` module for the beat commands: an app that has periodic tasks (`app.beat`). */
import type { Beat } from '@celeriac/beat';
import type { Logger } from 'pino';
import { loadAppOrExit } from './load';

/** An app with beat: the `Celeriac` class of the `celeriac` package. */
export interface BeatApp {
  readonly beat: Beat;
  readonly options: { readonly broker: unknown; readonly prefix: string };
  close(): Promise<void>;
}

/** The app of `-A`; exits with code 2 when it cannot be loaded or has no beat. */
export async function loadBeatAppOrExit(specifier: string, logger: Logger): Promise<BeatApp> {
  const app = (await loadAppOrExit(specifier, logger)) as unknown as Partial<BeatApp>;
  if (typeof app.beat?.scheduler !== 'function') {
    logger.fatal(
      { module: specifier },
      `The app in ${specifier} has no periodic tasks support (app.beat). Create it with \`new Celeriac(...)\` from ` +
        `the 'celeriac' package.`,
    );
    process.exit(2);
  }
  return app as BeatApp;
}
