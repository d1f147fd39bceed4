/**
 * The built package as users load it (`npm test` builds first): the bundles behind package.json,
 * ESM named imports, and what loading the app costs. A `fork` pool child loads the app for every
 * task, so `require('celeriac')` must not load the worker, beat or node:crypto until they are used,
 * nor Node's ESM resolver (which `exports` maps in package.json would need: ~3 ms per child).
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/** Runs a CommonJS script (from stdin, so node itself loads nothing extra) in the repo root. */
function runScript(source: string): unknown {
  return JSON.parse(execFileSync(process.execPath, ['-'], { cwd: ROOT, input: source, encoding: 'utf8' })) as unknown;
}

/** Runs an ES module's source in the repo root; returns what it printed. */
function runModule(source: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], { cwd: ROOT, encoding: 'utf8' }).trim();
}

/** What the process has loaded: our packages' files, and the listed built-in modules. */
const LOADED = `
  function loaded() {
    const builtins = process.moduleLoadList.filter((m) => /^NativeModule (crypto|child_process|worker_threads|internal[/]modules[/]esm[/]resolve)$/.test(m)).map((m) => m.split(' ')[1]);
    const files = Object.keys(require.cache).map((file) => file.slice(${JSON.stringify(`${ROOT}/`)}.length));
    return { builtins, files };
  }
`;

describe('the built celeriac package', () => {
  it('loads as bundles, and leaves the worker, beat, node:crypto and the ESM resolver until first use', () => {
    const result = runScript(`${LOADED}
      const celeriac = require('celeriac');
      const atLoad = loaded();
      const app = new celeriac.Celeriac({ broker: 'memory://' });
      const worker = app.worker({ pool: 'inline' });
      const schedule = celeriac.every('1m');
      const afterUse = loaded().files;
      console.log(JSON.stringify({ atLoad, afterUse, sameWorker: worker instanceof celeriac.Worker, schedule: typeof schedule.next }));
    `);
    expect(result).toEqual({
      atLoad: { builtins: [], files: ['packages/celeriac/bundle/index.js', 'packages/core/bundle/index.js'] },
      afterUse: ['packages/celeriac/bundle/index.js', 'packages/core/bundle/index.js', 'packages/worker/bundle/index.js', 'packages/beat/bundle/index.js'],
      sameWorker: true,
      schedule: 'function',
    });
  });

  it('serves @celeriac/core/testing from a bundle that shares core itself (one Codec class, not a copy)', () => {
    const result = runScript(`${LOADED}
      const testing = require('@celeriac/core/testing');
      console.log(JSON.stringify({ exports: typeof testing.runBackendConformance, files: loaded().files }));
    `);
    expect(result).toEqual({ exports: 'function', files: ['packages/core/testing/index.js', 'packages/core/bundle/testing.js', 'packages/core/bundle/index.js'] });
  });

  it('gives ESM code its named exports, the lazy ones included', () => {
    const output = runModule("import { Celeriac, chain, crontab, Worker } from 'celeriac'; console.log([Celeriac, chain, crontab, Worker].map((value) => typeof value).join(','));");
    expect(output).toBe('function,function,function,function');
  });

  it('gives ESM code the conformance suites at @celeriac/core/testing/index.js', () => {
    expect(runModule("import { runBrokerConformance } from '@celeriac/core/testing/index.js'; console.log(typeof runBrokerConformance);")).toBe('function');
  });

  it('serves the command line from its bundle', () => {
    const help = execFileSync(process.execPath, [resolve(ROOT, 'packages/celeriac/bundle/cli.js'), 'worker', '--help'], { encoding: 'utf8' });
    expect(help).toContain('--pool');
  });
});
