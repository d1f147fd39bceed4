/**
 * The entry point of a pool child. It turns on the code cache first, so that Celeriac's bundles the
 * child then loads (child-loop.js, @celeriac/core, celeriac) come from it; the app's own modules load
 * as Node loads them. This file is compiled in every child, so it holds nothing else.
 */
import { CODE_CACHE_ENV, useCodeCache } from './code-cache';

useCodeCache(process.env[CODE_CACHE_ENV]);
// Required, not imported: an import would be hoisted above the line before.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./child-loop');
