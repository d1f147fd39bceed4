/** Reads the Prometheus text format back into samples, for tests that scrape metrics. */

/** One sample: a metric name, its labels and its value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a scrape (comments and blank lines skipped). */
export function parseSamples(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const match = LINE.exec(line.trim());
    if (line.startsWith('#') || match === null) return [];
    const [, name, labelText, value] = match as unknown as [string, string, string | undefined, string];
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (labelText ?? '').matchAll(LABEL)) labels[key as string] = JSON.parse(`"${raw}"`);
    return [{ name, labels, value: Number(value) }];
  });
}

/**
 * The value of the one sample named `name` whose labels include `labels` (undefined when there is
 * none); throws when several match, so a test never reads the wrong one.
 */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
