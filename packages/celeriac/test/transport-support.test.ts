/**
 * What an app asks of its transport, checked when the app is made and when a task is registered:
 * an option the transport cannot honour fails at once with CELERIAC_UNSUPPORTED_BY_TRANSPORT, naming
 * the option, the transport and the transports that have it. Nothing here connects to Redis.
 */
import { CELERY_BROKER_CAPABILITIES } from '@celeriac/celery';
import { REDIS_BACKEND_CAPABILITIES, REDIS_BROKER_CAPABILITIES } from '@celeriac/redis';
import { Celeriac, MEMORY_BROKER_CAPABILITIES, type TaskOptions } from 'celeriac';

const REDIS = 'redis://127.0.0.1:6379/0';
const UNSUPPORTED = 'CELERIAC_UNSUPPORTED_BY_TRANSPORT';

function celeryApp(options: ConstructorParameters<typeof Celeriac>[0] = {}): Celeriac {
  return new Celeriac({ broker: REDIS, protocol: 'celery', ...options });
}

describe('options the transport lacks', () => {
  it('a flow option on a Celery app fails at registration, naming the option and who has it', () => {
    const app = celeryApp();
    let error: unknown;
    try {
      app.task('api.call', () => 1, { rateLimit: '10/s' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: UNSUPPORTED });
    expect((error as Error).message).toBe(
      "rateLimit of task api.call needs flow control, which the Celery protocol on Redis (protocol: 'celery') " +
        'lacks; redis://, redis+cluster://, redis+sentinel://; memory://; postgres://, postgresql:// have it. ' +
        'Remove the option or use a transport that has it.',
    );
    const flowOptions: TaskOptions[] = [{ concurrency: 1 }, { throttle: '1s' }, { unique: true }, { debounce: '1s' }];
    for (const options of flowOptions) {
      expect(() => app.task(`t.${Object.keys(options)[0]}`, () => 1, options)).toThrow(
        expect.objectContaining({ code: UNSUPPORTED, message: expect.stringContaining(Object.keys(options)[0]!) }),
      );
    }
  });

  it('app options a Celery broker cannot honour fail when the app is made', () => {
    expect(() => celeryApp({ maxDeliveries: 3 })).toThrow(
      expect.objectContaining({ code: UNSUPPORTED, message: expect.stringMatching(/^maxDeliveries needs exact/) }),
    );
    expect(() => celeryApp({ failedTtl: '1d' })).toThrow(expect.objectContaining({ code: UNSUPPORTED }));
    expect(() => celeryApp({ durability: 'replicated' })).toThrow(
      expect.objectContaining({ code: UNSUPPORTED, message: expect.stringContaining('redis+sentinel://') }),
    );
  });

  it("durability: 'replicated' on memory:// fails when the app is made", () => {
    expect(() => new Celeriac({ broker: 'memory://', durability: 'replicated' })).toThrow(
      expect.objectContaining({
        code: UNSUPPORTED,
        message: expect.stringContaining(
          "durability: 'replicated' needs a broker that waits for replicas, which memory://",
        ),
      }),
    );
  });

  it('Redis and memory apps take every option, and say what their transport declares', async () => {
    const redis = new Celeriac({ broker: REDIS, durability: 'replicated', maxDeliveries: 3, failedTtl: '1d' });
    const memory = new Celeriac({ broker: 'memory://', maxDeliveries: 3 });
    for (const app of [redis, memory]) {
      app.task('t.all', () => 1, { rateLimit: '1/s', concurrency: 2 });
      app.task('t.unique', () => 1, { unique: true });
      app.task('t.debounce', () => 1, { debounce: '1s' });
    }
    expect(redis.capabilities).toEqual({ broker: REDIS_BROKER_CAPABILITIES, backend: REDIS_BACKEND_CAPABILITIES });
    expect(memory.capabilities.broker).toBe(MEMORY_BROKER_CAPABILITIES);
    expect(celeryApp().capabilities.broker).toBe(CELERY_BROKER_CAPABILITIES);
    await Promise.all([redis.close(), memory.close()]);
  });

  it('a Broker object that declares no capabilities is refused when the app is made', () => {
    const broker = Object.assign(Object.create(null) as object, { publish: () => Promise.resolve([]) });
    expect(() => new Celeriac({ broker: broker as never, backend: 'memory://' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('capabilities') }),
    );
  });
});
