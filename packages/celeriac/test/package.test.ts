/**
 * The built package as users load it (`npm test` builds first): the files behind package.json, its
 * subpaths, and ESM named imports.
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

describe('the built celeriac package', () => {
  it('serves @celeriac/core/testing and @celeriac/core/internal from the same core (one app runtime, not a copy)', () => {
    const result = runScript(`
      const core = require('@celeriac/core');
      const testing = require('@celeriac/core/testing');
      const internal = require('@celeriac/core/internal');
      const app = new core.CeleriacCore({ broker: 'memory://' });
      console.log(JSON.stringify({ exports: typeof testing.runBackendConformance, runtime: internal.runtimeOf(app) instanceof internal.AppRuntime }));
    `);
    expect(result).toEqual({ exports: 'function', runtime: true });
  });

  it('gives ESM code its named exports', () => {
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
