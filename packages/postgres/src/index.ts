/**
 * `@celeriac/postgres`: Celeriac on PostgreSQL alone (docs/postgres.md): a broker, a result backend
 * and a beat store in one schema, claimed with `FOR UPDATE SKIP LOCKED`, woken by LISTEN/NOTIFY.
 */
export { Listener, type NotificationHandler } from './connection/listener';
export { PostgresConnection, type PostgresConnectionOptions } from './connection/postgres-connection';
export { quoted, schemaName } from './connection/schema-name';
export { MIGRATIONS, type Migration } from './migrations';
export { migrate } from './migrations/migrate';

/** The URL schemes of this transport. */
export const POSTGRES_SCHEMES: readonly string[] = ['postgres:', 'postgresql:'];
export { PostgresBroker } from './broker/postgres-broker';
export { POSTGRES_BROKER_CAPABILITIES } from './broker/capabilities';
export { PostgresBackend, type PostgresBackendOptions } from './backend/postgres-backend';
export { POSTGRES_BACKEND_CAPABILITIES } from './backend/capabilities';
export type { SweepReport } from './backend/expiry-sweeper';
export { PostgresBeatStore } from './beat-store/postgres-beat-store';
