import type { MessageLimits } from '../src/flow/message-limits';
import { MemoryFlowGate } from '../src/memory/memory-flow-gate';

/** Limits of a call of customer `key`: one start a second, and one run at a time. */
function perCustomer(key: string): MessageLimits {
  return {
    task: 'mail.send',
    rate: { limit: 1, per: 1_000, burst: 1, key: `mail.send:${key}` },
    concurrency: { limit: 1, key: `mail.send:${key}` },
  };
}

describe('MemoryFlowGate keeps no state for scopes that are done', () => {
  it('drops the rate budgets of keys whose next start has passed, and the slots of ended runs', () => {
    const gate = new MemoryFlowGate(new Map());
    const start = 1_000_000;
    for (let n = 0; n < 100; n++) {
      const limits = perCustomer(`c${n}`);
      expect(gate.admit(`t${n}`, limits, start)).toBeUndefined();
      gate.release(`t${n}`, limits.concurrency);
    }
    // 100 budgets, each due again one second later; the slots were given back.
    expect(gate.size).toBe(100);
    expect(gate.admit('late', perCustomer('late'), start + 2_000)).toBeUndefined();
    gate.release('late', perCustomer('late').concurrency);
    expect(gate.size).toBe(1);
  });

  it('forgets a held task that ended before it ran: its place in line and its booked start', () => {
    const gate = new MemoryFlowGate(new Map());
    const limits = perCustomer('a');
    expect(gate.admit('runs', limits, 0)).toBeUndefined();
    expect(gate.admit('held', limits, 0)).toBe(Infinity);
    gate.forget('held', limits);
    expect(gate.release('runs', limits.concurrency)).toEqual([]);
    const rateOnly: MessageLimits = { task: 't', rate: { limit: 1, per: 1_000, burst: 1, key: 't' } };
    expect(gate.admit('first', rateOnly, 0)).toBeUndefined();
    expect(gate.admit('booked', rateOnly, 0)).toBe(1_000);
    gate.forget('booked', rateOnly);
    // Only the two budgets are left; the line and the booking went with their tasks.
    expect(gate.size).toBe(2);
  });

  it('drops debounce windows of keys sent once, a window after their start, and those of leased tasks', () => {
    const gate = new MemoryFlowGate(new Map());
    const start = 1_000_000;
    const waiting = () => true;
    for (let n = 0; n < 100; n++) gate.lockDebounce(`d${n}`, { key: `digest:${n}`, window: 1_000 }, start + 1_000);
    gate.unlockDebounce('d0', { key: 'digest:0', window: 1_000 });
    expect(gate.size).toBe(99);
    expect(gate.debounceHolder({ key: 'digest:1', window: 1_000 }, waiting, start)).toBe('d1');
    // A window is kept until a window after its task's start; the next sweep drops it.
    const rateOnly: MessageLimits = { task: 't', rate: { limit: 1, per: 1_000, burst: 1, key: 't' } };
    expect(gate.admit('t', rateOnly, start + 2_001)).toBeUndefined();
    expect(gate.debounceHolder({ key: 'digest:1', window: 1_000 }, waiting, start + 2_001)).toBeUndefined();
    expect(gate.size).toBe(1);
  });
});
