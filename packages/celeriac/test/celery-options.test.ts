/** The `protocol` option and its Celery settings: defaults, and options refused with what to do. */
import { Celeriac } from 'celeriac';

describe("protocol: 'celery' options", () => {
  it("defaults to Celeriac's own protocol, and to kombu's defaults under protocol celery", () => {
    const app = new Celeriac({ protocol: 'celery' });
    expect(app.options.protocol).toBe('celery');
    expect(app.options.celery).toEqual({ keyPrefix: '', resultKeyPrefix: '', visibilityTimeout: 3_600_000 });
    expect(new Celeriac().options.protocol).toBe('celeriac');
  });

  it('refuses an unknown protocol, a short visibility timeout, and a secret (Celery messages are not signed)', () => {
    expect(() => new Celeriac({ protocol: 'amqp' as 'celery' })).toThrow(/Invalid protocol: "amqp"/);
    expect(() => new Celeriac({ protocol: 'celery', celery: { visibilityTimeout: 10 } })).toThrow(
      /celery\.visibilityTimeout/,
    );
    expect(() => new Celeriac({ protocol: 'celery', celery: { resultKeyPrefix: 1 as unknown as string } })).toThrow(
      /celery\.resultKeyPrefix/,
    );
    expect(() => new Celeriac({ protocol: 'celery', secret: 's' })).toThrow(
      expect.objectContaining({ code: 'CELERIAC_INVALID_OPTION', message: expect.stringContaining('secret') }),
    );
  });
});
