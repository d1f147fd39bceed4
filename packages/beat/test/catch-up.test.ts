import { decideCatchUp } from '@celeriac/beat';

const range = (slots: number[], dropped: number | 'many' = 0) => ({ slots, dropped });

describe('decideCatchUp', () => {
  it('fires a single slot that is on time, whatever the policy', () => {
    for (const policy of ['skip', 'once', 'all'] as const) {
      expect(decideCatchUp(policy, range([1_000]), 1_005, 10_000)).toEqual({ fire: [1_000], skipped: 0 });
    }
  });

  it("'all' fires every missed slot it was given and reports those left out", () => {
    expect(decideCatchUp('all', range([1_000, 2_000, 3_000], 4), 3_001, 10_000)).toEqual({
      fire: [1_000, 2_000, 3_000],
      skipped: 4,
    });
  });

  it("'once' fires the latest slot for all of them", () => {
    expect(decideCatchUp('once', range([1_000, 2_000, 3_000], 4), 60_000, 10_000)).toEqual({
      fire: [3_000],
      skipped: 6,
    });
    expect(decideCatchUp('once', range([1_000, 2_000], 'many'), 60_000, 10_000)).toEqual({
      fire: [2_000],
      skipped: 'many',
    });
  });

  it("'skip' fires the latest slot only when it is at most `grace` late", () => {
    expect(decideCatchUp('skip', range([1_000, 2_000, 3_000]), 12_000, 10_000)).toEqual({ fire: [3_000], skipped: 2 });
    expect(decideCatchUp('skip', range([1_000, 2_000, 3_000]), 13_001, 10_000)).toEqual({ fire: [], skipped: 3 });
  });

  it('fires nothing when nothing is due', () => {
    expect(decideCatchUp('all', range([]), 5, 10)).toEqual({ fire: [], skipped: 0 });
  });
});
