/** Loads the `-A` module for a command, or ends the process with a clear message. */
import { CeleriacError } from '@celeriac/core';
import { loadAppModule, type LoadedApp } from '@celeriac/worker';
import type { Logger } from 'pino';

/** The app of `-A`; on failure logs why and exits with code 2. */
export function loadAppOrExit(specifier: string, logger: Logger): LoadedApp {
  try {
    return loadAppModule(specifier);
  } catch (error) {
    const message = error instanceof CeleriacError ? error.message : `The app module could not be loaded: ${(error as Error).message}`;
    logger.fatal({ module: specifier, cause: (error as Error).cause instanceof Error ? String((error as Error).cause) : undefined }, message);
    process.exit(2);
  }
}
