/** Broker conformance: revocations remove waiting messages, are remembered for `revokeTtl`, and reach listeners. */
import type { Revocation } from '../../broker';
import { deferred, untilPast } from '../wait';
import { envelope, OTHER_QUEUE, publishAndReserve, QUEUE, type OpenBroker } from './harness';

const EMPTY = { ready: 0, delayed: 0, active: 0, dead: 0 };

/**
 * Defines the revocation cases; `removes` is the flag `revokeRemoves` (without it, a waiting message
 * stays where it is and only the revocation is remembered).
 */
export function revokeCases(open: OpenBroker, removes: boolean): void {
  if (!removes) {
    it('revoke of a waiting message remembers it and says it removed nothing (revokeRemoves: false)', async () => {
      const { broker } = await open();
      await broker.publish([envelope('waiting')]);
      expect(await broker.revoke({ id: 'waiting', terminate: false })).toEqual({ removed: false });
      expect(await broker.listRevoked()).toEqual([{ id: 'waiting', terminate: false }]);
      expect(await broker.stats(QUEUE)).toEqual({ ...EMPTY, ready: 1 });
    });
  }
  if (removes)
    it('revoke removes a waiting or delayed message, in any queue, and says it did', async () => {
      const { broker } = await open();
      await broker.publish([
        envelope('waiting'),
        envelope('delayed', { eta: Date.now() + 60_000 }),
        envelope('other', { queue: OTHER_QUEUE }),
      ]);
      for (const id of ['waiting', 'delayed', 'other']) {
        expect(await broker.revoke({ id, terminate: false })).toMatchObject({
          removed: true,
          body: expect.any(String),
        });
      }
      expect(await broker.stats(QUEUE)).toEqual(EMPTY);
      expect(await broker.stats(OTHER_QUEUE)).toEqual(EMPTY);
      expect(await broker.reserve([QUEUE, OTHER_QUEUE], 10)).toEqual([]);
    });

  it('revoke leaves a running message leased, and remembers revocations of running and unknown ids', async () => {
    const { broker } = await open();
    const running = await publishAndReserve(broker, envelope('running'));
    expect(await broker.revoke({ id: 'running', terminate: true, signal: 'SIGTERM', grace: 2_000 })).toEqual({
      removed: false,
    });
    expect(await broker.revoke({ id: 'unknown', terminate: false })).toEqual({ removed: false });
    expect(await broker.stats(QUEUE)).toEqual({ ...EMPTY, active: 1 });
    const revoked = await broker.listRevoked();
    expect([...revoked].sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'running', terminate: true, signal: 'SIGTERM', grace: 2_000 },
      { id: 'unknown', terminate: false },
    ]);
    await broker.ack([running]);
    expect(await broker.stats(QUEUE)).toEqual(EMPTY);
  });

  it('listRevoked forgets a revocation once revokeTtl has passed', async () => {
    // Long enough that the read right after the revoke comes within it on a loaded machine.
    const { broker } = await open({ revokeTtl: 1_500 });
    await broker.revoke({ id: 'short-lived', terminate: false });
    const revokedAt = Date.now();
    expect(await broker.listRevoked()).toEqual([{ id: 'short-lived', terminate: false }]);
    await untilPast(revokedAt + 1_550);
    expect(await broker.listRevoked()).toEqual([]);
  });

  it('onRevoke calls a listener for every revocation from then on, until it unsubscribes', async () => {
    const { broker, writer } = await open();
    await writer.revoke({ id: 'before', terminate: false });
    const seenByA: Revocation[] = [];
    const seenByB: Revocation[] = [];
    const aGotOne = deferred();
    const bGotTwo = deferred();
    const unsubscribeA = await broker.onRevoke((revocation) => {
      seenByA.push(revocation);
      aGotOne.resolve();
    });
    const unsubscribeB = await broker.onRevoke((revocation) => {
      seenByB.push(revocation);
      if (seenByB.length === 2) bGotTwo.resolve();
    });
    await writer.revoke({ id: 'first', terminate: true, signal: 'SIGKILL', grace: 0 });
    await aGotOne.promise;
    await unsubscribeA();
    await writer.revoke({ id: 'second', terminate: false });
    await bGotTwo.promise;
    await unsubscribeB();
    // How to stop a running task (signal, grace) reaches workers with the revocation.
    expect(seenByA).toEqual([{ id: 'first', terminate: true, signal: 'SIGKILL', grace: 0 }]);
    expect(seenByB).toEqual([
      { id: 'first', terminate: true, signal: 'SIGKILL', grace: 0 },
      { id: 'second', terminate: false },
    ]);
  });
}
