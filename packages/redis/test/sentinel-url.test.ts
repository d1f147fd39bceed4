/**
 * `redis+sentinel://` URLs: what they mean to ioredis, the errors that say how to write a bad one,
 * and passwords kept out of messages.
 */
import { CeleriacError } from '@celeriac/core';
import { parseTransportUrl, transportUrlText } from '@celeriac/core/internal';
import { redactUrl, sentinelOptions } from '@celeriac/redis/internal';

describe('Sentinel URLs', () => {
  it('name the Sentinels, the master, its database and the credentials of servers and Sentinels', () => {
    const options = sentinelOptions(
      'redis+sentinel://app:s%40cret@s1:26380,10.0.0.2,[::1]:26381/mymaster/3?sentinelPassword=guard',
    );
    expect(options).toMatchObject({
      sentinels: [
        { host: 's1', port: 26380 },
        { host: '10.0.0.2', port: 26379 },
        { host: '::1', port: 26381 },
      ],
      name: 'mymaster',
      db: 3,
      username: 'app',
      password: 's@cret',
      sentinelPassword: 'guard',
      role: 'master',
    });
    expect(options.tls).toBeUndefined();
  });

  it('default to database 0, and rediss+sentinel:// speaks TLS to servers and Sentinels', () => {
    expect(sentinelOptions('redis+sentinel://s1/mymaster')).toMatchObject({ db: 0, sentinels: [{ host: 's1' }] });
    expect(sentinelOptions('rediss+sentinel://s1:26379,s2:26379/mymaster')).toMatchObject({
      tls: {},
      sentinelTLS: {},
      enableTLSForSentinelMode: true,
    });
  });

  it.each([
    ['redis+sentinel://s1:26379,s2:26379', 'names no master'],
    ['redis+sentinel://s1:26379/mymaster/zero', 'only a database number may follow'],
    ['redis+sentinel://s1:26379/mymaster/0/extra', 'only a database number may follow'],
    ['redis+sentinel://s1:26379,s2:x/mymaster', '"s2:x" is not host or host:port'],
    ['redis+sentinel://s1:99999,s2:1/mymaster', 'out of range'],
    ['redis+sentinel://s1:26379/mymaster?password=x', 'unknown parameter password'],
    ['redis+sentinel:///mymaster', 'names no Sentinel host'],
  ])('refuses %s, saying what is wrong and how to write it', (url, problem) => {
    const error = catchError(() => sentinelOptions(url));
    expect(error).toBeInstanceOf(CeleriacError);
    expect(error).toMatchObject({ code: 'CELERIAC_INVALID_OPTION' });
    expect(error.message).toContain(problem);
    expect(error.message).toContain('redis+sentinel://[[user]:password@]host[:port][,host[:port]...]/master-name[/db]');
  });

  it('keep their password out of messages, the host list as written', () => {
    const url = 'redis+sentinel://:hunter2@s1:26379,s2:26379/mymaster';
    expect(redactUrl(url)).toBe('redis+sentinel://:***@s1:26379,s2:26379/mymaster');
    expect(catchError(() => sentinelOptions(`${url}/x`)).message).not.toContain('hunter2');
  });

  it('pass through the app as URL objects and back to the text written', () => {
    const url = 'redis+sentinel://u:p%40ss@s1:26379,[::1]:26380/mymaster/2?sentinelPassword=x';
    expect(transportUrlText(parseTransportUrl(url))).toBe(url);
    expect(parseTransportUrl(url).protocol).toBe('redis+sentinel:');
  });
});

function catchError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}
