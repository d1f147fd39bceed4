/** Values a worker could not use are refused where they are set, with a typed error naming them. */
import { Celeriac, MAX_RESULT_TTL_MS } from 'celeriac';
import { useApp } from './support/app';

const invalid = (option: string) =>
  expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining(option) });

describe('checks on send', () => {
  const t = useApp();

  it('refuses a resultTtl Redis cannot keep: in the app, in the task, and in the call', () => {
    expect(() => new Celeriac({ broker: 'memory://', resultTtl: 1e20 })).toThrow(invalid('resultTtl'));
    const long = t.app.task('long', () => 1, { resultTtl: MAX_RESULT_TTL_MS + 1_000 });
    expect(() => long.delay()).toThrow(invalid('resultTtl'));
    const plain = t.app.task('plain', () => 1);
    expect(() => plain.applyAsync([], { resultTtl: 1e20 })).toThrow(invalid('resultTtl'));
    expect(() => plain.applyAsync([], { resultTtl: '100000000d' })).not.toThrow();
  });

  it('refuses headers whose values are not strings', () => {
    const plain = t.app.task('plain', () => 1);
    expect(() => plain.applyAsync([], { headers: { attempt: 1 } as unknown as Record<string, string> })).toThrow(
      invalid('headers'),
    );
  });
});
