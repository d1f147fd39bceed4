import { RedisFixture } from '@celeriac/test-support';
import { BlockingCallDropped, BlockingClient } from '../src/connection/blocking-client';

describe('a blocking call ended by its signal just as it ended by itself', () => {
  let fixture: RedisFixture;
  let blocking: BlockingClient;
  beforeEach(() => (fixture = new RedisFixture('blocking')));
  afterEach(async () => {
    await blocking.close();
    await fixture.cleanup();
  });

  /**
   * Starts a BZPOPMIN whose promise settles only when `settleWith` says, pops it with a ZADD, then
   * aborts the call: CLIENT UNBLOCK finds nothing blocked, while the call has not settled yet (as
   * when its reply, or a command queued behind it, is still on its way).
   */
  async function endedTooLate(settleWith: Promise<void>) {
    const redis = fixture.redis();
    blocking = new BlockingClient(redis);
    const key = `${fixture.prefix}:{blocking}:marker`;
    const end = new AbortController();
    const unblocks: Array<Promise<boolean>> = [];
    const unblock = blocking.unblock.bind(blocking);
    blocking.unblock = (via) => {
      const unblocked = unblock(via);
      unblocks.push(unblocked);
      return unblocked;
    };
    let popped!: () => void;
    const untilPopped = new Promise<void>((resolve) => (popped = resolve));
    const call = blocking.call({ via: redis, signal: end.signal, key, bound: 30_000 }, (client) =>
      client.bzpopmin(key, 10).then(async (reply) => {
        popped();
        await settleWith;
        return reply;
      }),
    );
    call.catch(() => undefined);
    await redis.zadd(key, 0, 'wake');
    await untilPopped;
    end.abort();
    await expect(unblocks[0]).resolves.toBe(false);
    return { call, key };
  }

  it('keeps its reply and its connection: it is not dropped for a call that has just ended', async () => {
    let release!: () => void;
    const { call, key } = await endedTooLate(new Promise<void>((resolve) => (release = resolve)));
    release();
    await expect(call).resolves.toEqual([key, 'wake', '0']);
    expect(blocking.broken).toBe(false);
  });

  it('drops the connection when the call has not settled a while later (it waits on a lost master)', async () => {
    const { call } = await endedTooLate(new Promise<void>(() => undefined));
    await expect(call).rejects.toBeInstanceOf(BlockingCallDropped);
    expect(blocking.broken).toBe(true);
  });
});
