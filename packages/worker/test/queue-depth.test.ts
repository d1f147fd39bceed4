import { queueDepth, WITHDRAW_AFTER_MS } from '../src/pool/queue-depth';

describe('queueDepth (how many jobs a prefork child may hold)', () => {
  it('queues tiny tasks up to the most allowed, so they travel in large batches', () => {
    expect(queueDepth({ averageMs: 0, runningMs: 0, maxDepth: 128 })).toBe(128);
    expect(queueDepth({ averageMs: 0.05, runningMs: 0, maxDepth: 128 })).toBe(128);
  });

  it('queues about 10 ms of work for short tasks', () => {
    expect(queueDepth({ averageMs: 1, runningMs: 0, maxDepth: 128 })).toBe(10);
    expect(queueDepth({ averageMs: 0.5, runningMs: 0, maxDepth: 128 })).toBe(20);
    expect(queueDepth({ averageMs: 4, runningMs: 1, maxDepth: 128 })).toBe(2);
  });

  it('keeps one job ahead once tasks, or the current one, take longer', () => {
    expect(queueDepth({ averageMs: 50, runningMs: 0, maxDepth: 128 })).toBe(2);
    expect(queueDepth({ averageMs: 0.1, runningMs: 20, maxDepth: 128 })).toBe(2);
  });

  it('holds nothing behind a task that has run long: what waits there is taken back', () => {
    expect(queueDepth({ averageMs: 0.1, runningMs: WITHDRAW_AFTER_MS, maxDepth: 128 })).toBe(1);
  });

  it('never goes past the most allowed (prefetching off: only the running job)', () => {
    expect(queueDepth({ averageMs: 0, runningMs: 0, maxDepth: 1 })).toBe(1);
    expect(queueDepth({ averageMs: 50, runningMs: 0, maxDepth: 1 })).toBe(1);
  });
});
