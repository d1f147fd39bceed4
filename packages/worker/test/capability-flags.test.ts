/**
 * The worker branches on what the broker declares, not on which methods it happens to have: a
 * broker with a `heartbeat` method that declares no worker records gets no heartbeats, and a
 * broker that declares them gets one at start and its record removed at stop.
 */
import { MEMORY_BROKER_CAPABILITIES, type Broker, type WorkerInfo } from '@celeriac/core';
import { Heartbeat } from '../src/heartbeat';
import { quietLogger } from '../src';

const INFO: WorkerInfo = {
  hostname: 'w1',
  pid: 1,
  queues: ['default'],
  pool: 'inline',
  concurrency: 1,
  started: 0,
  heartbeat: 0,
  processed: 0,
  active: 0,
};

function recordingBroker(workerRecords: boolean) {
  const calls: string[] = [];
  const broker = {
    capabilities: { ...MEMORY_BROKER_CAPABILITIES, workerRecords },
    heartbeat: (info: WorkerInfo) => (calls.push(`heartbeat ${info.hostname}`), Promise.resolve()),
    forgetWorker: (hostname: string) => (calls.push(`forget ${hostname}`), Promise.resolve()),
    listWorkers: () => Promise.resolve([]),
  } as unknown as Broker;
  return { broker, calls };
}

describe('capability flags in the worker', () => {
  it('sends no heartbeat to a broker that declares no worker records, whatever its methods', async () => {
    const { broker, calls } = recordingBroker(false);
    const heartbeat = new Heartbeat(broker, () => INFO, quietLogger);
    heartbeat.start();
    await heartbeat.stop('w1');
    expect(calls).toEqual([]);
  });

  it('beats at start and forgets the worker at stop when the broker declares worker records', async () => {
    const { broker, calls } = recordingBroker(true);
    const heartbeat = new Heartbeat(broker, () => INFO, quietLogger);
    heartbeat.start();
    await heartbeat.stop('w1');
    expect(calls).toEqual(['heartbeat w1', 'forget w1']);
  });
});
