import { MemoryBackend, MemoryBroker } from '@celeriac/core';
import { runBackendConformance, runBrokerConformance } from '@celeriac/core/testing';

runBrokerConformance('memory', async (settings) => {
  const broker = new MemoryBroker(settings);
  return { broker, cleanup: () => broker.close() };
});

runBackendConformance('memory', async ({ codec }) => {
  const backend = new MemoryBackend(codec);
  return { backend, cleanup: () => backend.close() };
});
