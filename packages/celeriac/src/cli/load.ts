/** Loads the `-A` module for a command, or ends the process with a clear message. */
import { CeleriacError } from '@celeriac/core';
import { loadAppModule, type LoadedApp } from '@celeriac/worker/internal';
import type { Logger } from 'pino';

/** The app of `-A`; on failure logs why and exits with code 2. */
export function loadAppOrExit(specifier: string, logger: Logger): LoadedApp {
  try {
    return loadAppModule(specifier);
  } catch (error) {
    const message =
      error instanceof CeleriacError
        ? error.message
        : `The app module could not be loaded: ${(error as Error).message}`;
    // The error the module threw, with its stack (where in the module it failed); pino logs `err` with its stack.
    const thrown = error instanceof CeleriacError ? error.cause : error;
    logger.fatal({ module: specifier, err: thrown instanceof Error ? thrown : undefined }, message);
    process.exit(2);
  }
}
