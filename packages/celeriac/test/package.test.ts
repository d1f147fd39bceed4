/**
 * The built packages as the workspace lays them out (`npm test` builds first): what each
 * package.json promises, and what loading `celeriac` loads. Only `celeriac` is published; the
 * others are private and bundled inside its tarball (scripts/pack.mjs). test/e2e/install.test.ts
 * installs the packed tarball into a project of its own.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/** What a package may ship beside dist/: the CLI, the Lua scripts read at run time (Redis' and Celery's), the UI. */
const SHIPPED_BESIDE_DIST = ['dist', '!dist/.tsbuildinfo', 'bin', 'src/scripts', 'src/kombu-redis/scripts', 'ui'];

interface Manifest {
  name: string;
  private?: boolean;
  main: string;
  types: string;
  files: string[];
  exports: Record<string, string | { types: string; default: string }>;
}

const PUBLISHED = ['core', 'redis', 'celery', 'worker', 'beat', 'dashboard', 'celeriac'].map((dir) => ({
  dir: join(ROOT, 'packages', dir),
  manifest: JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Manifest,
}));

/** The subpaths a package may export beyond `.` and `./package.json`. */
const SUBPATHS: Record<string, string[]> = {
  celeriac: ['./testing'],
  '@celeriac/core': ['./testing', './internal'],
  '@celeriac/redis': ['./internal'],
  '@celeriac/celery': ['./internal'],
  '@celeriac/worker': ['./internal'],
};

describe('the built packages', () => {
  it('publish `celeriac` only: every package it is built from is private, bundled at pack time', () => {
    expect(PUBLISHED.filter(({ manifest }) => manifest.private !== true).map(({ manifest }) => manifest.name)).toEqual([
      'celeriac',
    ]);
  });

  it.each(PUBLISHED.map(({ manifest, dir }) => [manifest.name, manifest, dir] as const))(
    '%s exports its entry points with their types first, from dist/, and ships dist/ only',
    (name, manifest, dir) => {
      expect(Object.keys(manifest.exports)).toEqual(['.', ...(SUBPATHS[name] ?? []), './package.json']);
      expect(manifest.exports['./package.json']).toBe('./package.json');
      const entries = Object.entries(manifest.exports).filter(([subpath]) => subpath !== './package.json');
      for (const [, target] of entries) {
        // Resolvers take the first condition that matches: `types` must come before `default`.
        expect(typeof target === 'object' && Object.keys(target)).toEqual(['types', 'default']);
      }
      expect(manifest.exports['.']).toEqual({ types: manifest.types, default: manifest.main });
      expect(existsSync(join(dir, manifest.main))).toBe(true);
      expect(existsSync(join(dir, manifest.types))).toBe(true);
      expect(manifest.files.filter((file) => !SHIPPED_BESIDE_DIST.includes(file))).toEqual([]);
    },
  );
});

/** Runs a CommonJS script (from stdin) in the repo root; returns what it printed, parsed. */
function runScript(source: string): unknown {
  return JSON.parse(execFileSync(process.execPath, ['-'], { cwd: ROOT, input: source, encoding: 'utf8' })) as unknown;
}

/** Runs an ES module's source in the repo root; returns what it printed. */
function runModule(source: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, encoding: 'utf8' }).trim();
}

describe('the built packages, loaded', () => {
  it('serve @celeriac/core/testing and @celeriac/core/internal from one core (one app runtime, not a copy)', () => {
    const result = runScript(`
      const core = require('@celeriac/core');
      const testing = require('@celeriac/core/testing');
      const internal = require('@celeriac/core/internal');
      const app = new core.CeleriacCore({ broker: 'memory://' });
      const runtime = internal.runtimeOf(app) instanceof internal.AppRuntime;
      console.log(JSON.stringify({ exports: typeof testing.runBackendConformance, runtime }));
    `);
    expect(result).toEqual({ exports: 'function', runtime: true });
  });

  it('give ESM code their named exports', () => {
    const output = runModule(
      "import { Celeriac, chain, crontab, Worker } from 'celeriac'; console.log([Celeriac, chain, crontab, " +
        "Worker].map((value) => typeof value).join(','));",
    );
    expect(output).toBe('function,function,function,function');
  });
});
