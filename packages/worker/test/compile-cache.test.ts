import * as moduleNamespace from 'node:module';
import { enableCompileCacheIfAvailable, hasCompileCache } from '../src/pool/compile-cache';

describe("pool children and Node's compile cache", () => {
  it('knows which Node versions have module.enableCompileCache (22.1 and later)', () => {
    expect(['20.20.0', '22.0.0', '21.9.9'].map(hasCompileCache)).toEqual([false, false, false]);
    expect(['22.1.0', '22.12.3', '23.0.0', '24.4.1'].map(hasCompileCache)).toEqual([true, true, true, true]);
  });

  it('does nothing on a Node without it', () => {
    expect(enableCompileCacheIfAvailable('20.20.0')).toBe(false);
  });

  it('turns it on, or reports it off, as this Node allows', () => {
    const nodeModule = moduleNamespace as { enableCompileCache?: unknown };
    const available = typeof nodeModule.enableCompileCache === 'function';
    expect(enableCompileCacheIfAvailable(process.versions.node)).toBe(
      available && hasCompileCache(process.versions.node),
    );
  });
});
