/**
 * The built packages as the workspace lays them out (`npm test` builds first): what each
 * package.json promises, and what loading `celeriac` loads. test/e2e/install.test.ts installs the
 * packed tarballs into a project of its own.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

interface Manifest {
  name: string;
  main: string;
  types: string;
  files: string[];
  exports: Record<string, string | { types: string; default: string }>;
}

const PUBLISHED = ['core', 'redis', 'worker', 'beat', 'celeriac'].map((dir) => ({
  dir: join(ROOT, 'packages', dir),
  manifest: JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Manifest,
}));

/** The subpaths a package may export beyond `.` and `./package.json`. */
const SUBPATHS: Record<string, string[]> = { '@celeriac/core': ['./testing', './internal'] };

describe('the built packages', () => {
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
      expect(manifest.files.filter((file) => !['dist', '!dist/.tsbuildinfo', 'bin', 'src/scripts'].includes(file))).toEqual([]);
    },
  );

  it('leaves the worker and beat packages unloaded until their values are first used', () => {
    const script = `
      const packageFiles = (pkg) => Object.keys(require.cache).filter((file) => file.includes('/packages/' + pkg + '/')).length;
      const celeriac = require('celeriac');
      const atLoad = { worker: packageFiles('worker'), beat: packageFiles('beat') };
      const worker = new celeriac.Celeriac({ broker: 'memory://' }).worker({ pool: 'inline' });
      celeriac.every('1m');
      const afterUse = { worker: packageFiles('worker') > 0, beat: packageFiles('beat') > 0 };
      console.log(JSON.stringify({ atLoad, afterUse, sameWorker: worker instanceof celeriac.Worker }));
    `;
    const result = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' })) as unknown;
    expect(result).toEqual({ atLoad: { worker: 0, beat: 0 }, afterUse: { worker: true, beat: true }, sameWorker: true });
  });
});
