/**
 * The BeatStore conformance suite: every method of the {@link BeatStore} contract, run against any
 * implementation with `runBeatStoreConformance('redis', factory)` inside a jest test file.
 */
import { randomUUID } from 'node:crypto';
import { entryCases } from './beat-store/entry-cases';
import type { BeatStoreFactory, OpenBeatStore } from './beat-store/harness';
import { leaseCases } from './beat-store/lease-cases';
import { slotCases } from './beat-store/slot-cases';
import { cleanedUpAfterEach } from './fixtures';

/**
 * Defines a jest `describe` block that checks `factory`'s stores against the BeatStore contract.
 * Each test opens its own fixture with a unique prefix and cleans it up afterwards.
 */
export function runBeatStoreConformance(name: string, factory: BeatStoreFactory): void {
  describe(`BeatStore conformance: ${name}`, () => {
    const open: OpenBeatStore = cleanedUpAfterEach(async () => {
      const fixture = await factory(`conformance-${randomUUID()}`);
      return { ...fixture, writer: fixture.peer ?? fixture.store };
    });

    describe('leader lease', () => leaseCases(open));
    describe('last fired slots', () => slotCases(open));
    describe('runtime entries', () => entryCases(open));
  });
}
