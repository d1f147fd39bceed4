/**
 * The entry point of a pool child. Where Node has its own compile cache (`module.enableCompileCache`,
 * Node 22.1 and later), it turns it on first, so that the modules the child then loads (Celeriac's
 * and the app's) are read back compiled instead of compiled again in every child. Older Node has no
 * such cache and the child loads as Node loads. It turns source maps on too, as the worker does.
 * This file is compiled in every child, so it holds nothing else.
 */
import { enableCompileCacheIfAvailable } from './compile-cache';

enableCompileCacheIfAvailable(process.versions.node);
// A failure's traceback points at the app's .ts lines when it was compiled with source maps.
process.setSourceMapsEnabled(true);
// Required, not imported: an import would be hoisted above the line before.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./child-loop');
