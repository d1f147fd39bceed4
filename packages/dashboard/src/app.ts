/** The app a dashboard shows: any Celeriac app, with its periodic entries when it has them. */
import type { Beat } from '@celeriac/beat';
import type { CeleriacCore } from '@celeriac/core';

/** A Celeriac app (the `Celeriac` class of the `celeriac` package has `beat`; a core app works without). */
export type DashboardApp = CeleriacCore & { readonly beat?: Beat };
