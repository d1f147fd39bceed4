/** Loads the `-A` module for a command, or ends the process with a clear message. */
import { CeleriacError } from '@celeriac/core';
import { loadAppModule, resolveAppModule, type LoadedApp } from '@celeriac/worker/internal';
import type { Logger } from 'pino';

/** The app of `-A`, and the file it was loaded from (what pool children load). */
export interface AppModule {
  readonly app: LoadedApp;
  readonly path: string;
}

/** The app of `-A`; on failure logs why and exits with code 2. */
export async function loadAppOrExit(specifier: string, logger: Logger): Promise<LoadedApp> {
  return (await loadAppModuleOrExit(specifier, logger)).app;
}

/** The app of `-A` and its file; on failure logs why and exits with code 2. */
export async function loadAppModuleOrExit(specifier: string, logger: Logger): Promise<AppModule> {
  try {
    const path = resolveAppModule(specifier);
    return { app: await loadAppModule(path), path };
  } catch (error) {
    const message =
      error instanceof CeleriacError
        ? `${error.message} (${error.code})`
        : `The app module could not be loaded: ${(error as Error).message}`;
    // The error the module threw, with its stack (where in the module it failed); pino logs `err` with its stack.
    const thrown = error instanceof CeleriacError ? error.cause : error;
    logger.fatal({ module: specifier, err: thrown instanceof Error ? thrown : undefined }, message);
    process.exit(2);
  }
}
