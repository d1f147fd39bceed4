/**
 * @celeriac/beat: periodic tasks. Schedules (`crontab`, `every`, `at`), the app's entries
 * (`app.schedule`, `app.beat`), and the scheduler that fires each slot exactly once while it holds
 * a lease, with standbys ready to take over. It knows no transport: the app hands it a BeatStore.
 */
export { Beat, type BeatEntryInfo, type BeatOptions } from './beat';
export { decideCatchUp, type CatchUpDecision } from './catch-up';
export { ManualClock, systemClock, type CancelTimer, type Clock } from './clock';
export { resolveEntry, type EntrySource, type ResolvedEntry, type ScheduleEntry, type TaskRef } from './entries';
export type { BeatHost } from './host';
export { quietBeatLogger, type BeatLogger } from './logger';
export { MAX_CATCH_UP, SCHEDULER_DEFAULTS, type ResolvedSchedulerOptions, type SchedulerOptions } from './options';
export { Scheduler, type SchedulerEvents, type SchedulerState } from './scheduler';
export { at } from './schedules/at';
export { crontab, type CrontabOptions } from './schedules/crontab';
export { every, type EveryOptions } from './schedules/every';
export { scheduleFromSpec, toSchedule, type ScheduleInput } from './schedules/from-spec';
export { fingerprint, type Schedule, type SlotRange } from './schedules/schedule';
export { slotTaskId, type FiredSlot } from './slot-sender';
export type { BeatTaskOptions, CatchUpPolicy, ScheduleSpec } from '@celeriac/core';
