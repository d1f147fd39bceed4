/**
 * The backend conformance suite on the Celery result backend (Celery's result layout on Redis,
 * `celery-task-meta-<id>`), under the capabilities it declares. Result keys are put under the test's
 * prefix with `resultKeyPrefix` (Celery 5.3's result `global_keyprefix`), so each test has its own.
 */
import type { BackendSettings, Codec } from '@celeriac/core';
import { runBackendConformance } from '@celeriac/core/testing';
import { CELERY_BACKEND_CAPABILITIES, CeleryBackend } from '@celeriac/celery';
import { CeleryWorkflow } from '@celeriac/celery/internal';
import { RedisConnection } from '@celeriac/redis';
import { adminClient, CELERY_REDIS_URL, deleteKeysUnder } from '@celeriac/test-support';

/** A Celery backend of its own connection, every key (kombu's, Celery's results, Celeriac's) under the prefix. */
function celeryBackend(settings: BackendSettings, codec: Codec): CeleryBackend {
  return new CeleryBackend(new RedisConnection(CELERY_REDIS_URL), settings, {
    keyPrefix: `${settings.prefix}:kombu:`,
    resultKeyPrefix: `${settings.prefix}:`,
    codec,
    workflow: new CeleryWorkflow(codec),
  });
}

runBackendConformance('celery on redis', CELERY_BACKEND_CAPABILITIES, async ({ settings, codec }) => {
  const backend = celeryBackend(settings, codec);
  const peer = celeryBackend({ ...settings, clientId: `${settings.clientId}-peer` }, codec);
  return {
    backend,
    peer,
    cleanup: async () => {
      await Promise.allSettled([backend.close(), peer.close()]);
      const admin = adminClient(CELERY_REDIS_URL);
      await deleteKeysUnder(admin, settings.prefix);
      await admin.quit();
    },
  };
});
