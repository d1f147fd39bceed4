/**
 * An ACL user as Redis 7 makes it by default: every key of the prefix and every command, but no
 * pub/sub channel. A worker, a sender awaiting a result and beat each fail with a
 * `CELERIAC_NO_PERMISSION` error that names the missing rule; with the rule docs/redis.md gives
 * (`&<prefix>:*`) they all work. The user is deleted afterwards. Each Redis server keeps its own
 * users, so on Cluster and Sentinel the user is set on every server of the topology.
 */
import { every } from 'celeriac';
import type { Logger } from '@celeriac/core';
import { RedisFixture, TestAclUser } from '@celeriac/test-support';

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('Redis ACL users', () => {
  let fixture: RedisFixture;
  /** The test's ACL user, set on every server of the topology (apart from the fixture, removed last). */
  let user: TestAclUser;

  beforeEach(async () => {
    fixture = new RedisFixture('acl');
    user = new TestAclUser();
    // Explicit resetchannels: what acl-pubsub-default gives new users on Redis 7, whatever this server's setting.
    await user.set('reset', 'on', `>${user.password}`, `~${fixture.prefix}*`, '+@all', 'resetchannels');
  });
  afterEach(async () => {
    // The apps first: deleting the user disconnects its clients, which would then retry in vain.
    try {
      await fixture.cleanup();
    } finally {
      await user.remove();
    }
  });

  /** An app that connects as the test's ACL user, with one task. */
  function appAsUser() {
    const app = fixture.app({ broker: user.url });
    const echo = app.task('acl.echo', (text: string) => text);
    return { app, echo };
  }

  it('without channels, a worker, a sender awaiting its result and beat fail, naming the ACL rules', async () => {
    const rule = expect.stringContaining('ACL SETUSER <user> ~<prefix>:* &<prefix>:* +@all');
    const { app, echo } = appAsUser();
    await expect(app.worker({ pool: 'inline', concurrency: 1, logger: quiet }).start()).rejects.toMatchObject({
      code: 'CELERIAC_NO_PERMISSION',
      message: expect.stringMatching(
        new RegExp(
          `^Could not subscribe to channel ${fixture.prefix}:revoke: the Redis user's ACL does not allow it \\(NOPERM`,
        ),
      ),
    });
    await expect(app.worker({ pool: 'inline', concurrency: 1, logger: quiet }).start()).rejects.toMatchObject({
      message: rule,
    });
    await expect(echo.delay('hello')).rejects.toMatchObject({
      code: 'CELERIAC_NO_PERMISSION',
      message: expect.stringContaining(`subscribe to channel ${fixture.prefix}:reply:`),
    });
    await expect(
      app.beat.add('nightly', { task: 'acl.echo', schedule: every('1h'), args: ['x'] }),
    ).rejects.toMatchObject({ code: 'CELERIAC_NO_PERMISSION', message: rule });
  });

  it.each([
    ['the channels of its prefix', (prefix: string) => `&${prefix}:*`],
    ['every channel', () => '&*'],
  ])('with %s, the same user runs a worker, a sender and beat', async (_, channels) => {
    await user.set(channels(fixture.prefix));
    const { app, echo } = appAsUser();
    await app.worker({ pool: 'inline', concurrency: 1, logger: quiet }).start();
    await expect(echo.delay('hello')).resolves.toBe('hello');
    await app.beat.add('nightly', { task: 'acl.echo', schedule: every('1h'), args: ['x'] });
    const scheduler = app.beat.scheduler({ lease: '2s' });
    await scheduler.start();
    expect(scheduler.entries().map((entry) => entry.name)).toEqual(['nightly']);
    await app.revoke('some-task');
    await scheduler.close();
  });
});
