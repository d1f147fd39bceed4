/**
 * `@celeriac/celery/internal`: what the celeriac package shares of the Celery protocol beyond its
 * public API (kombu's key layout, the workflow tracker an app's broker and backend share). Not for
 * applications: it changes without notice.
 */
export { CeleryKeys } from '../kombu-redis/keys';
export { CeleryWorkflow, type FollowUp, type FollowUpSender } from '../protocol/workflow';
export { PIDBOX, withCeleryRemoteControl } from '../kombu-amqp/remote-control';
export { amqpEventSender, CELERYEV } from '../kombu-amqp/events';
