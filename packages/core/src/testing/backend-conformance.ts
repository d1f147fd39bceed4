/**
 * The ResultBackend conformance suite: every method of the {@link ResultBackend} contract, run
 * against any implementation with `runBackendConformance('redis', REDIS_BACKEND_CAPABILITIES,
 * factory)` inside a jest test file. Each optional area runs under its capability flag; one the
 * backend does not declare is listed as "<area>: not declared by <name>" and checked for the lack.
 */
import { randomUUID } from 'node:crypto';
import type { BackendCapabilities } from '../capabilities';
import { Codec } from '../codec';
import { capabilityCases } from './backend/capability-cases';
import { changeCases, changeLack, manyCases, manyLack } from './backend/change-cases';
import { eventCases, eventLack } from './backend/event-cases';
import { groupCases } from './backend/group-cases';
import type { BackendFactory, OpenBackend } from './backend/harness';
import { recordCases } from './backend/record-cases';
import { waitCases } from './backend/wait-cases';
import { featureArea } from './feature-area';
import { cleanedUpAfterEach } from './fixtures';

/**
 * Defines a jest `describe` block that checks `factory`'s backends against the ResultBackend
 * contract, each optional area under its flag of `capabilities` (the fixture's backend must declare
 * exactly these). Each test opens its own fixture with a unique prefix and cleans it up afterwards.
 */
export function runBackendConformance(name: string, capabilities: BackendCapabilities, factory: BackendFactory): void {
  describe(`ResultBackend conformance: ${name}`, () => {
    const open: OpenBackend = cleanedUpAfterEach(async () => {
      const context = {
        settings: { prefix: `conformance-${randomUUID()}`, clientId: randomUUID() },
        codec: new Codec(),
      };
      const fixture = await factory(context);
      return { ...fixture, context, writer: fixture.peer ?? fixture.backend };
    });
    const area = (title: string, declared: boolean, cases: () => void, lacks: () => void) =>
      featureArea(name, title, declared, cases, lacks);

    describe('capabilities', () => capabilityCases(open, capabilities));
    describe('records', () => recordCases(open));
    describe('waiting and notifications', () => waitCases(open));
    describe('group counters', () => groupCases(open));
    area(
      'event log',
      capabilities.events,
      () => eventCases(open),
      () => eventLack(open),
    );
    area(
      'change listeners',
      capabilities.changes,
      () => changeCases(open),
      () => changeLack(open),
    );
    area(
      'many-task waits',
      capabilities.waitForMany,
      () => manyCases(open),
      () => manyLack(open),
    );
  });
}
