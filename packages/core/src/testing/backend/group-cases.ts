/** Backend conformance: chord counters, which must complete a group exactly once. */
import type { OpenBackend } from './harness';

/** Defines the group counter cases. */
export function groupCases(open: OpenBackend): void {
  it('groupMemberDone counts distinct members and completes the group once', async () => {
    const { backend } = await open();
    expect(await backend.groupMemberDone('g', 0, 3, 60_000)).toEqual({ done: 1, completed: false, repeated: false });
    expect(await backend.groupMemberDone('g', 0, 3, 60_000)).toEqual({ done: 1, completed: false, repeated: true });
    expect(await backend.groupMemberDone('g', 2, 3, 60_000)).toEqual({ done: 2, completed: false, repeated: false });
    expect(await backend.groupMemberDone('other', 0, 1, 60_000)).toEqual({ done: 1, completed: true, repeated: false });
    expect(await backend.groupMemberDone('g', 1, 3, 60_000)).toEqual({ done: 3, completed: true, repeated: false });
    // A re-run member after completion: not a second completion, but it can tell the group is full.
    expect(await backend.groupMemberDone('g', 1, 3, 60_000)).toEqual({ done: 3, completed: false, repeated: true });
  });

  it('groupMemberDone: members counted in the same tick, one twice, each get their own progress in order', async () => {
    const { backend } = await open();
    const progress = await Promise.all([
      backend.groupMemberDone('tick', 0, 3, 60_000),
      backend.groupMemberDone('tick', 1, 3, 60_000),
      backend.groupMemberDone('single', 0, 1, 60_000),
      backend.groupMemberDone('tick', 1, 3, 60_000),
      backend.groupMemberDone('tick', 2, 3, 60_000),
    ]);
    expect(progress).toEqual([
      { done: 1, completed: false, repeated: false },
      { done: 2, completed: false, repeated: false },
      { done: 1, completed: true, repeated: false },
      { done: 2, completed: false, repeated: true },
      { done: 3, completed: true, repeated: false },
    ]);
  });

  it('groupMemberDone: exactly one of many concurrent callers sees the group completed', async () => {
    const { backend, writer } = await open();
    const size = 25;
    const progress = await Promise.all(
      Array.from({ length: size }, (_, index) =>
        (index % 2 === 0 ? backend : writer).groupMemberDone('race', index, size, 60_000),
      ),
    );
    expect(progress.filter((step) => step.completed)).toEqual([{ done: size, completed: true, repeated: false }]);
    expect(progress.map((step) => step.done).sort((a, b) => a - b)).toEqual(
      Array.from({ length: size }, (_, index) => index + 1),
    );
  });
}
