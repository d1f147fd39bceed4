/** `celeriac inspect stats` for people: an autoscaling worker's bounds read as words, not JSON. */
import { statsLines } from '../src/cli/stats-lines';

describe('statsLines', () => {
  it("shows an autoscaling worker's size and bounds", () => {
    expect(statsLines({ concurrency: 3, autoscale: { min: 1, max: 4 } })).toBe(
      'concurrency: 3\nautoscale: min 1, max 4',
    );
  });
});
