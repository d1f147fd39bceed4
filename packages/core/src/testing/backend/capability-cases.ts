/** Backend conformance: the backend declares the capabilities the suite runs under, and keeps their word. */
import { type BackendCapabilities } from '../../capabilities';
import { missingMethods } from '../../supports';
import type { OpenBackend } from './harness';

/** Defines the capability cases. */
export function capabilityCases(open: OpenBackend, capabilities: BackendCapabilities): void {
  it('declares the capabilities the suite was given, and every member its flags stand for', async () => {
    const { backend, writer } = await open();
    expect(backend.capabilities).toEqual(capabilities);
    expect(writer.capabilities).toEqual(capabilities);
    expect(missingMethods(backend)).toEqual([]);
  });
}
