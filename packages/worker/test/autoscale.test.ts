/**
 * Autoscale: the option's checks (bounds, pools, concurrency, the CLI's MAX,MIN), and the
 * autoscaler's policy on Jest's clock: grow at once to the demand, shrink by each slot left unused
 * for the idle period, never below min or the demand, and no timer while there is nothing to shrink.
 */
import { CeleriacError } from '@celeriac/core';
import { parseAutoscale } from '../src/autoscale-options';
import { Autoscaler } from '../src/autoscaler';
import { quietLogger } from '../src/logger';
import { resolveWorkerOptions } from '../src/options';
import { WorkerAutoscale } from '../src/worker-autoscale';

const APP = { appModule: '/app.js' };

describe('the autoscale option', () => {
  it('starts the pool at min; min defaults to 1, idle to 30 s; prefetch follows the size unless given', () => {
    const resolved = resolveWorkerOptions({ ...APP, pool: 'prefork', autoscale: { max: 8, min: 2 } }, 'q');
    expect(resolved).toMatchObject({
      concurrency: 2,
      autoscale: { min: 2, max: 8, idle: 30_000 },
      prefetchGiven: false,
    });
    expect(resolveWorkerOptions({ ...APP, pool: 'fork', autoscale: { max: 3, idle: '2s' } }, 'q').autoscale).toEqual({
      min: 1,
      max: 3,
      idle: 2_000,
    });
    expect(resolveWorkerOptions({ ...APP, pool: 'prefork', autoscale: { max: 3 }, prefetch: 0 }, 'q')).toMatchObject({
      prefetch: 0,
      prefetchGiven: true,
    });
  });

  it.each([
    [{ pool: 'prefork', autoscale: { max: 1, min: 4 } }, 'autoscale: "1,4"; expected MAX,MIN with MAX at least MIN'],
    [{ pool: 'prefork', autoscale: { max: 0 } }, 'autoscale.max: 0'],
    [{ pool: 'prefork', autoscale: { max: 4, min: 0 } }, 'autoscale.min: 0'],
    [{ pool: 'prefork', autoscale: { max: 2.5 } }, 'autoscale.max: 2.5'],
    [{ pool: 'inline', autoscale: { max: 4 } }, 'only the prefork and fork pools change their size'],
    [{ autoscale: { max: 4 } }, 'with pool "inline"'],
    [{ pool: 'prefork', autoscale: { max: 4 }, concurrency: 2 }, 'concurrency 2 and autoscale 4,1 together'],
  ] as const)('refuses %j with CELERIAC_INVALID_OPTION', (options, message) => {
    const resolve = () => resolveWorkerOptions({ ...APP, ...options }, 'q');
    expect(resolve).toThrow(CeleriacError);
    expect(resolve).toThrow(expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION' }));
    expect(resolve).toThrow(message);
  });

  it('refuses an idle period that is not a duration, as every duration option does', () => {
    expect(() =>
      resolveWorkerOptions({ ...APP, pool: 'prefork', autoscale: { max: 4, idle: 'soon' as never } }, 'q'),
    ).toThrow(
      expect.objectContaining({
        code: 'CELERIAC_INVALID_DURATION',
        message: expect.stringContaining('autoscale.idle'),
      }),
    );
  });

  it("reads the CLI's MAX,MIN, or MAX alone", () => {
    expect(parseAutoscale('10,3')).toEqual({ max: 10, min: 3 });
    expect(parseAutoscale(' 4 , 1 ')).toEqual({ max: 4, min: 1 });
    expect(parseAutoscale('6')).toEqual({ max: 6 });
    for (const bad of ['x', '', '4,', '4,1,1', '4,0', '-2', '2.5', '0x4']) {
      expect(() => parseAutoscale(bad)).toThrow(expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION' }));
    }
  });
});

describe('the autoscaler', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  /** An autoscaler over a pool of `size`, with `demand` set by the test; resizes take effect at once. */
  function scaler(min: number, max: number, idle = 1_000) {
    const state = { size: min, demand: 0, sizes: [] as number[] };
    const autoscaler = new Autoscaler({
      min,
      max,
      idle,
      demand: () => state.demand,
      size: () => state.size,
      resize: async (size) => {
        state.size = size;
        state.sizes.push(size);
      },
    });
    const demand = async (n: number) => {
      state.demand = n;
      autoscaler.observe();
      await jest.advanceTimersByTimeAsync(0);
    };
    return { state, autoscaler, demand };
  }

  it('grows at once to the demand, up to max', async () => {
    const { state, demand } = scaler(1, 4);
    await demand(3);
    expect(state.sizes).toEqual([3]);
    await demand(9);
    expect(state.sizes).toEqual([3, 4]);
    await demand(12);
    expect(state.sizes).toEqual([3, 4]);
  });

  it('shrinks by each slot once it was unused for the idle period, down to min; then keeps no timer', async () => {
    const { state, demand } = scaler(1, 4, 1_000);
    await demand(4);
    await demand(3);
    await jest.advanceTimersByTimeAsync(400);
    await demand(1);
    await jest.advanceTimersByTimeAsync(599);
    expect(state.sizes).toEqual([4]);
    // Slot 4 was last used 1 s ago; slots 3 and 2 only 600 ms ago.
    await jest.advanceTimersByTimeAsync(1);
    expect(state.sizes).toEqual([4, 3]);
    await jest.advanceTimersByTimeAsync(400);
    expect(state.sizes).toEqual([4, 3, 1]);
    await demand(0);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(state.sizes).toEqual([4, 3, 1]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('never shrinks below the demand, and a slot used again restarts its idle period', async () => {
    const { state, demand } = scaler(1, 3, 1_000);
    await demand(3);
    await demand(2);
    await jest.advanceTimersByTimeAsync(900);
    await demand(3);
    await demand(2);
    await jest.advanceTimersByTimeAsync(900);
    expect(state.sizes).toEqual([3]);
    await jest.advanceTimersByTimeAsync(100);
    expect(state.sizes).toEqual([3, 2]);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(state.size).toBe(2);
  });

  it('a control resize past a bound moves the bound, as Celery does', async () => {
    const { state, autoscaler, demand } = scaler(2, 4, 1_000);
    state.size = 6;
    autoscaler.resized(6);
    expect(autoscaler.bounds).toEqual({ min: 2, max: 6 });
    await demand(6);
    expect(state.sizes).toEqual([]);
    state.size = 1;
    autoscaler.resized(1);
    expect(autoscaler.bounds).toEqual({ min: 1, max: 6 });
  });

  it('stops: no resize after stop()', async () => {
    const { state, autoscaler, demand } = scaler(1, 4);
    autoscaler.stop();
    await demand(4);
    expect(state.sizes).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe("a worker's prefetch under autoscale", () => {
  function prefetchAt(size: number, given?: number): number {
    return new WorkerAutoscale({
      autoscale: { min: 1, max: 4, idle: 1_000 },
      prefetch: given ?? 1,
      prefetchGiven: given !== undefined,
      logger: quietLogger,
      demand: () => 0,
      size: () => size,
      resize: () => Promise.resolve(),
    }).prefetch();
  }

  it('follows the size now (not max) when not given', () => {
    expect([1, 2, 4].map((size) => prefetchAt(size))).toEqual([1, 2, 4]);
  });

  it('keeps a given prefetch, but holds one task ahead below max even at 0 (the work that makes it grow)', () => {
    expect([1, 3, 4].map((size) => prefetchAt(size, 0))).toEqual([1, 1, 0]);
    expect([1, 4].map((size) => prefetchAt(size, 6))).toEqual([6, 6]);
  });
});
