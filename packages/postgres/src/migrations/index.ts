/**
 * Every schema step, in order. The broker's steps are numbered from 100, the result backend's from
 * 200 and the beat store's from 300, so each part adds its own without renumbering the others.
 */
import { BROKER_TABLES } from './100-broker-tables';
import { UNIQUE_LOCKS } from './101-unique-locks';
import { FLOW_CONTROL } from './102-flow-control';
import { DEBOUNCE_LOCKS } from './103-debounce-locks';
import { RESULTS_MIGRATION } from './200-results';
import { GROUP_COUNTERS_MIGRATION } from './201-group-counters';
import { EVENTS_MIGRATION } from './202-events';
import { BEAT_MIGRATION } from './300-beat';
import type { Migration } from './migration';

export type { Migration } from './migration';

/** The schema steps a database gets, applied in `id` order. */
export const MIGRATIONS: readonly Migration[] = [
  BROKER_TABLES,
  UNIQUE_LOCKS,
  FLOW_CONTROL,
  DEBOUNCE_LOCKS,
  RESULTS_MIGRATION,
  GROUP_COUNTERS_MIGRATION,
  EVENTS_MIGRATION,
  BEAT_MIGRATION,
];
