import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isOwnBundle, type CodeCacheUse } from '../src/pool/code-cache';
import { chooseCodeCacheDir, sweepStaleTemporaries } from '../src/pool/code-cache-dir';

/** The compiled module, as a pool child loads it. */
const CODE_CACHE_JS = join(__dirname, '..', 'dist', 'pool', 'code-cache.js');

describe('the code cache of pool children', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'celeriac-code-cache-test-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("caches Celeriac's bundles only, where a workspace or an install puts them", () => {
    for (const own of ['/w/packages/core/bundle/index.js', '/app/node_modules/@celeriac/worker/bundle/child-main.js', '/app/node_modules/celeriac/bundle/cli.js', 'C:\\app\\node_modules\\@celeriac\\core\\bundle\\index.js']) {
      expect(isOwnBundle(own)).toBe(true);
    }
    for (const other of ['/app/dist/tasks.js', '/app/node_modules/superjson/dist/index.js', '/app/node_modules/other/bundle/index.js', '/app/node_modules/celeriacx/bundle/index.js', '/app/node_modules/@celeriac/core/bundle/index.js.map', '/app/node_modules/@celeriac/core/bundle/chunks/a.js', '/app/node_modules/@celeriac/core/bundle/.js']) {
      expect(isOwnBundle(other)).toBe(false);
    }
  });

  it("keeps a pool child's entry to the cache alone: the child loop is a bundle of its own, which loads from the cache", () => {
    const bundles = join(__dirname, '..', 'bundle');
    const entry = readFileSync(join(bundles, 'child-main.js'), 'utf8');
    expect(entry).toContain('require("./child-loop.js")');
    expect(entry).not.toContain('loadAppModule');
    expect(isOwnBundle(join(bundles, 'child-loop.js'))).toBe(true);
  });

  it("finds Node's module class without loading node:module (and its ESM loader)", () => {
    const script = `
      const { CommonJsModule } = require(${JSON.stringify(join(__dirname, '..', 'dist', 'pool', 'commonjs-module.js'))});
      const loaded = process.moduleLoadList.includes('NativeModule module');
      process.stdout.write(JSON.stringify({ loaded, same: CommonJsModule === require('node:module') }));`;
    // A file, not -e: evaluating a string loads node:module itself.
    const file = join(root, 'main.js');
    writeFileSync(file, script);
    expect(JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }))).toEqual({ loaded: false, same: true });
  });

  /** Loads `bundle` in a new process that uses the cache in `dir`; what it exported, and how. */
  function load(bundle: string, dir: string): { exported: unknown; use: CodeCacheUse } {
    const script = `
      const { useCodeCache } = require(${JSON.stringify(CODE_CACHE_JS)});
      const use = useCodeCache(${JSON.stringify(dir)});
      const exported = require(${JSON.stringify(bundle)});
      process.stdout.write(JSON.stringify({ exported, use }));`;
    return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { exported: unknown; use: CodeCacheUse };
  }

  it('compiles a bundle once, loads it from the cache after, and compiles it again once it changed', () => {
    const bundle = join(root, 'packages', 'core', 'bundle', 'index.js');
    mkdirSync(join(root, 'packages', 'core', 'bundle'), { recursive: true });
    writeFileSync(bundle, 'module.exports = "first";');
    const dir = join(root, 'cache');

    expect(load(bundle, dir)).toEqual({ exported: 'first', use: { fromCache: [], compiled: [bundle] } });
    expect(readdirSync(dir)).toHaveLength(1);
    expect(load(bundle, dir)).toEqual({ exported: 'first', use: { fromCache: [bundle], compiled: [] } });

    // The same length, so V8's own check (which compares lengths) would take the old code.
    writeFileSync(bundle, 'module.exports = "other";');
    const later = statSync(bundle).mtimeMs / 1000 + 5;
    utimesSync(bundle, later, later);
    expect(load(bundle, dir)).toEqual({ exported: 'other', use: { fromCache: [], compiled: [bundle] } });
    expect(load(bundle, dir)).toEqual({ exported: 'other', use: { fromCache: [bundle], compiled: [] } });
  });

  it('leaves other modules to Node, and compiles without a directory', () => {
    const plain = join(root, 'tasks.js');
    writeFileSync(plain, 'module.exports = 7;');
    expect(load(plain, join(root, 'cache'))).toEqual({ exported: 7, use: { fromCache: [], compiled: [] } });
    expect(() => readdirSync(join(root, 'cache'))).toThrow();
  });

  it('removes the temporary files of entries whose writers were killed, once they are a minute old', () => {
    const names = ['index-1a2b.v8cache', 'index-1a2b.v8cache.4242.k3j4h5', 'child-loop-9f.v8cache.77.zz9', 'notes.txt.1.x'];
    for (const name of names) writeFileSync(join(root, name), '');
    const minuteAgo = Date.now() / 1000 - 61;
    utimesSync(join(root, 'index-1a2b.v8cache.4242.k3j4h5'), minuteAgo, minuteAgo);
    utimesSync(join(root, 'index-1a2b.v8cache'), minuteAgo, minuteAgo);
    utimesSync(join(root, 'notes.txt.1.x'), minuteAgo, minuteAgo);
    sweepStaleTemporaries(root, Date.now());
    // The old temporary goes; the entry, the one still being written and files not ours stay.
    expect(readdirSync(root).sort()).toEqual(['child-loop-9f.v8cache.77.zz9', 'index-1a2b.v8cache', 'notes.txt.1.x']);
  });

  it("uses a directory of the user's own that no one else can write to, or none", () => {
    // Linux, as the rest of the suite: process.getuid exists.
    const uid = process.getuid?.() as number;
    const dir = chooseCodeCacheDir(undefined, root, uid);
    expect(dir).toBe(join(root, `celeriac-code-cache-${uid}`));
    expect(statSync(dir as string).mode & 0o777).toBe(0o700);
    chmodSync(dir as string, 0o777);
    expect(chooseCodeCacheDir(undefined, root, uid)).toBeUndefined();
    expect(chooseCodeCacheDir('off', root, uid)).toBeUndefined();
    expect(chooseCodeCacheDir('', root, uid)).toBeUndefined();
    expect(chooseCodeCacheDir('/var/cache/celeriac', root, uid)).toBe('/var/cache/celeriac');
  });
});
