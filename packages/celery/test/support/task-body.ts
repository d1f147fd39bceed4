/** What the Celery broker conformance runs share: the cases' text carried as a Celeriac task message. */
import type { Codec, Envelope } from '@celeriac/core';
import { encodeMessage, MESSAGE_VERSION } from '@celeriac/core/internal';

/** A Celeriac task message whose one argument is the case's body (the broker turns it into a Celery message). */
export function taskBody(codec: Codec, envelope: Envelope): string {
  return encodeMessage(codec, {
    version: MESSAGE_VERSION,
    id: envelope.id,
    task: 'conformance.task',
    args: [envelope.body],
    queue: envelope.queue,
    priority: envelope.priority,
    ...(envelope.eta === undefined ? {} : { eta: envelope.eta }),
    retries: 0,
    headers: {},
    publishedAt: Date.now(),
  });
}
