import { MEMORY_BACKEND_CAPABILITIES, MEMORY_BROKER_CAPABILITIES, MemoryBackend, MemoryBroker } from '@celeriac/core';
import { runBackendConformance, runBrokerConformance } from '@celeriac/core/testing';

runBrokerConformance('memory', MEMORY_BROKER_CAPABILITIES, async (settings) => {
  const broker = new MemoryBroker(settings);
  return { broker, cleanup: () => broker.close() };
});

runBackendConformance('memory', MEMORY_BACKEND_CAPABILITIES, async ({ codec }) => {
  const backend = new MemoryBackend(codec);
  return { backend, cleanup: () => backend.close() };
});
