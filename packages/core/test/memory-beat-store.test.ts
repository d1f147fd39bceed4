import { MemoryBeatStore } from '@celeriac/core';
import { runBeatStoreConformance } from '@celeriac/core/testing';

runBeatStoreConformance('memory', async () => {
  const store = new MemoryBeatStore();
  return { store, cleanup: () => store.close() };
});
