/** Which errors mean that a cluster refused a script call because its slot was moving (and ran nothing). */
import { BrokerUnavailableError } from '@celeriac/core';
import { isSlotMoving, retryWhileSlotMoves } from '../src/connection/slot-migration';
import { unavailable } from '../src/connection/unavailable';

describe('isSlotMoving', () => {
  it.each([
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'ASK 4878 127.0.0.1:7001',
    'Too many Cluster redirections. Last error: ReplyError: TRYAGAIN Multiple keys request during rehashing of slot',
    'Too many Cluster redirections. Last error: ReplyError: MOVED 4878 127.0.0.1:7001',
  ])('is true for %s', (message) => {
    expect(isSlotMoving(new Error(message))).toBe(true);
  });

  it.each([
    'Connection is closed.',
    'Too many Cluster redirections. Last error: Error: Connection is closed.',
    'CLUSTERDOWN The cluster is down',
    'ERR Error running script: TRYAGAIN in a message',
  ])('is false for %s, which may have run', (message) => {
    expect(isSlotMoving(new Error(message))).toBe(false);
  });
});

describe('retryWhileSlotMoves', () => {
  it('sends a refused call again until it is answered, and passes other errors on at once', async () => {
    let calls = 0;
    const answer = await retryWhileSlotMoves(async () => {
      calls += 1;
      if (calls < 3) throw new Error('TRYAGAIN Multiple keys request during rehashing of slot');
      return 'OK';
    });
    expect([answer, calls]).toEqual(['OK', 3]);
    let failing = 0;
    await expect(
      retryWhileSlotMoves(async () => {
        failing += 1;
        throw new Error('Connection is closed.');
      }),
    ).rejects.toThrow('Connection is closed.');
    expect(failing).toBe(1);
  });
});

describe('unavailable', () => {
  it('reports a call refused while its slot moved as BrokerUnavailableError, saying why', () => {
    const refused = new Error('Too many Cluster redirections. Last error: ReplyError: TRYAGAIN Multiple keys request');
    const error = unavailable(refused, 'publish', {
      url: 'redis+cluster://:secret@h1:7000,h2:7001',
      lastError: undefined,
    });
    expect(error).toBeInstanceOf(BrokerUnavailableError);
    expect((error as Error).message).toMatch(/Could not publish: .*kept moving the slot.*resharding/);
    expect((error as Error).message).not.toContain('secret');
  });
});
