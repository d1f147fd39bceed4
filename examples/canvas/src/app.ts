/**
 * The example's app and tasks: a tiny word-count pipeline (fetch a text, count its words, report),
 * some arithmetic for a large chord, and an errback. The broker is chosen at run time, so the app is
 * built by a function; in your own code, create the app at module level and export it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Celeriac, type RemoteError } from 'celeriac';

/** The texts `text.fetch` can find; any other name fails with NotFoundError. */
export const LIBRARY: Readonly<Record<string, string>> = {
  harbour: 'The ferry left the harbour at dawn with three passengers and a crate of lemons',
  orchard: 'Rain came early to the orchard so the pickers waited under the barn roof',
  market: 'By noon the market smelled of bread and smoke and everyone argued about eggs',
};

/** The error of a text that is not in the library. Its name travels with the failure. */
export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

/**
 * The key namespace of the example, so it never touches another app's keys on a shared Redis
 * (`CELERIAC_EXAMPLE_PREFIX` picks another, as the project's tests do).
 */
export const EXAMPLE_PREFIX = process.env.CELERIAC_EXAMPLE_PREFIX ?? 'celeriac-example-canvas';

/** Creates the app on `broker` and registers the example's tasks. */
export function createCanvasApp(broker: string) {
  const app = new Celeriac({ broker, prefix: EXAMPLE_PREFIX, resultTtl: '10m' });

  /** Looks a text up by name, after a short pause that stands in for a download. */
  const fetchText = app.task('text.fetch', async (name: string) => {
    await sleep(20);
    const text = LIBRARY[name];
    if (text === undefined) throw new NotFoundError(`no text named "${name}"`);
    return text;
  });

  /** Counts the words of a text; in a chain it receives the text from the step before. */
  const countWords = app.task('text.words', (text: string) => text.split(/\s+/).filter(Boolean).length);

  /** Formats a count; in a chain the count comes first and `label` is the signature's own argument. */
  const report = app.task('text.report', (count: number, label: string) => `${label}: ${count} words`);

  const square = app.task('math.square', (n: number) => n * n);

  /** A chord's body: receives the list of the header's results, in order. */
  const sum = app.task('math.sum', (values: number[]) => values.reduce((total, value) => total + value, 0));

  /** An errback: a worker calls it with the id of the task that failed for good and its error. */
  const notify = app.task(
    'alerts.notify',
    (taskId: string, error: RemoteError) => `alert: task ${taskId} failed with ${error.name}: ${error.message}`,
  );

  return { app, fetchText, countWords, report, square, sum, notify };
}

/** The app and task handles of the example. */
export type CanvasExample = ReturnType<typeof createCanvasApp>;
