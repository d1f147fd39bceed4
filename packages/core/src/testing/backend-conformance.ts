/**
 * The ResultBackend conformance suite: every method of the {@link ResultBackend} contract, run
 * against any implementation with `runBackendConformance('redis', factory)` inside a jest test file.
 */
import { randomUUID } from 'node:crypto';
import { Codec } from '../codec';
import { eventCases } from './backend/event-cases';
import { groupCases } from './backend/group-cases';
import type { BackendConformanceOptions, BackendFactory, OpenBackend } from './backend/harness';
import { recordCases } from './backend/record-cases';
import { waitCases } from './backend/wait-cases';
import { cleanedUpAfterEach } from './fixtures';

/**
 * Defines a jest `describe` block that checks `factory`'s backends against the ResultBackend
 * contract. Each test opens its own fixture with a unique prefix and cleans it up afterwards.
 */
export function runBackendConformance(
  name: string,
  factory: BackendFactory,
  options: BackendConformanceOptions = {},
): void {
  describe(`ResultBackend conformance: ${name}`, () => {
    const open: OpenBackend = cleanedUpAfterEach(async () => {
      const context = {
        settings: { prefix: `conformance-${randomUUID()}`, clientId: randomUUID() },
        codec: new Codec(),
      };
      const fixture = await factory(context);
      return { ...fixture, context, writer: fixture.peer ?? fixture.backend };
    });

    describe('records', () => recordCases(open));
    describe('waiting and notifications', () => waitCases(open, options));
    describe('group counters', () => groupCases(open));
    describe('event log', () => eventCases(open));
  });
}
