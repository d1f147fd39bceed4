/** Broker conformance: the broker declares the capabilities the suite runs under, and keeps their word. */
import { type BrokerCapabilities } from '../../capabilities';
import { missingMethods } from '../../supports';
import type { OpenBroker } from './harness';

/** Defines the capability cases. */
export function capabilityCases(open: OpenBroker, capabilities: BrokerCapabilities): void {
  it('declares the capabilities the suite was given, and every method its flags stand for', async () => {
    const { broker, writer } = await open();
    expect(broker.capabilities).toEqual(capabilities);
    expect(writer.capabilities).toEqual(capabilities);
    expect(missingMethods(broker)).toEqual([]);
    expect(capabilities.durability).toContain('async');
  });
}
