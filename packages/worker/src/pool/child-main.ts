/**
 * The entry point of a pool child. It turns on the code cache first, so that everything the child
 * then loads (@celeriac/core with child-loop.ts, the app module) can come from it.
 */
import { CODE_CACHE_ENV, useCodeCache } from './code-cache';

useCodeCache(process.env[CODE_CACHE_ENV]);
// Required, not imported: an import would be hoisted above the line before.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./child-loop');
