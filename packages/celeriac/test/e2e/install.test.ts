/**
 * Celeriac as a user meets it: the packed tarballs (`npm run pack`, run through its script) installed
 * into a fresh project outside the workspace, a TypeScript tasks module compiled against them under
 * `strict` without `skipLibCheck`, `celeriac worker` started from the project's own bin, and a
 * sender that gets results back through Redis. Runs the built packages: `npm test` builds first.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { adminClient, deleteKeysUnder, freshPrefix, REDIS_URL } from '@celeriac/test-support';

const ROOT = resolve(__dirname, '../../../..');
const PACKAGES = [
  'celeriac',
  '@celeriac/core',
  '@celeriac/redis',
  '@celeriac/worker',
  '@celeriac/beat',
  '@celeriac/dashboard',
];

/** The version the workspace itself uses of a package the user project installs too (cached by `npm ci`). */
function workspaceVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    rootDir: 'src',
    outDir: 'dist',
    types: ['node'],
  },
  include: ['src'],
};

const TASKS = `import 'reflect-metadata';
import { Celeriac, task } from 'celeriac';

export const app = new Celeriac({
  broker: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
  prefix: process.env.APP_PREFIX ?? 'app',
});

export const add = app.task('install.add', (a: number, b: number): number => a + b);

class Greeter {
  @task({ name: 'install.greet', retries: 1 })
  greet(name: string): string {
    return \`hello \${name} from \${process.pid}\`;
  }
}

export const greeter = app.register(new Greeter());
`;

const SEND = `import { add, app, greeter } from './tasks';

async function main(): Promise<void> {
  const sum: number = await add.delay(2, 3).get({ timeout: '20s' });
  const greeting: string = await greeter.greet.delay('you').get({ timeout: '20s' });
  console.log(JSON.stringify({ sum, greeting }));
  await app.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;

const ESM_CHECK = `import { Celeriac, task, Worker } from 'celeriac';
import { runBrokerConformance } from '@celeriac/core/testing';
console.log([Celeriac, task, Worker, runBrokerConformance].map((value) => typeof value).join(','));
`;

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

describe('the packed packages, installed into a project of its own', () => {
  let work: string;
  let project: string;
  const prefix = freshPrefix('e2e-install');
  let worker: ChildProcess | undefined;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'celeriac-install-'));
    const packs = join(work, 'packs');
    const tarballs = execFileSync(process.execPath, [join(ROOT, 'scripts/pack.mjs'), packs], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    project = join(work, 'project');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'install-check', private: true }));
    // The dependencies come from npm's cache when `npm ci` put them there; the registry otherwise.
    const extras = ['reflect-metadata', '@types/node'].map((name) => `${name}@${workspaceVersion(name)}`);
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs, ...extras], {
      cwd: project,
      stdio: 'pipe',
    });
  }, 120_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    const redis = adminClient();
    await deleteKeysUnder(redis, prefix);
    await redis.quit();
    rmSync(work, { recursive: true, force: true });
  });

  it('installs each package as a folder holding dist/ (and the Lua scripts), with no maps or build info', () => {
    for (const name of PACKAGES) {
      const dir = join(project, 'node_modules', name);
      expect(lstatSync(dir).isSymbolicLink()).toBe(false);
      const files = filesUnder(dir);
      expect(
        files.filter(
          (file) => !/^(dist\/|package\.json$|README|LICENSE)/.test(file) && !/^(bin|src\/scripts|ui)\//.test(file),
        ),
      ).toEqual([]);
      expect(files.filter((file) => /\.map$|tsbuildinfo/.test(file))).toEqual([]);
    }
    expect(
      filesUnder(join(project, 'node_modules/@celeriac/redis/src/scripts')).some((file) => file.endsWith('.lua')),
    ).toBe(true);
    // The dashboard serves its page from the package.
    expect(filesUnder(join(project, 'node_modules/@celeriac/dashboard/ui'))).toContain('app.js');
  });

  it('serves the named entry points to CommonJS and ES modules, and refuses deep imports', () => {
    const resolveIn = (specifier: string): string => {
      const script =
        `try { console.log(require.resolve(${JSON.stringify(specifier)})); } catch (error) { ` +
        `console.log(error.code); }`;
      return execFileSync(process.execPath, ['-e', script], { cwd: project, encoding: 'utf8' }).trim();
    };
    expect(resolveIn('@celeriac/core/testing')).toBe(
      join(project, 'node_modules/@celeriac/core/dist/testing/index.js'),
    );
    expect(resolveIn('@celeriac/worker/internal')).toBe(
      join(project, 'node_modules/@celeriac/worker/dist/internal/index.js'),
    );
    expect(resolveIn('@celeriac/worker/dist/pool/child-handle')).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(resolveIn('celeriac/dist/index.js')).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    writeFileSync(join(project, 'esm-check.mjs'), ESM_CHECK);
    expect(execFileSync(process.execPath, ['esm-check.mjs'], { cwd: project, encoding: 'utf8' }).trim()).toBe(
      'function,function,function,function',
    );
  });

  // tsc over the installed declarations, a worker and its child, and a sender: 28 s at load 13 on 2 cores.
  it('compiles decorated tasks strictly, runs `celeriac worker` from the bin; a sender gets the results', async () => {
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    writeFileSync(join(project, 'src/tasks.ts'), TASKS);
    writeFileSync(join(project, 'src/send.ts'), SEND);
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
      cwd: project,
      stdio: 'pipe',
    });

    const env = { ...process.env, REDIS_URL, APP_PREFIX: prefix };
    const started = spawn(
      join(project, 'node_modules/.bin/celeriac'),
      ['worker', '-A', './dist/tasks.js', '-c', '1', '--json-logs'],
      { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    worker = started;
    const stderr: string[] = [];
    createInterface({ input: started.stderr }).on('line', (line) => stderr.push(line));
    const exited = new Promise<number | null>((resolveExit) => started.once('exit', (code) => resolveExit(code)));
    const messages: string[] = [];
    await new Promise<void>((resolveReady, rejectReady) => {
      createInterface({ input: started.stdout }).on('line', (line) => {
        const message = line.startsWith('{') ? (JSON.parse(line) as { msg: string }).msg : line;
        messages.push(message);
        if (message.endsWith(' ready')) resolveReady();
      });
      void exited.then((code) =>
        rejectReady(new Error(`The worker exited (code ${code}) before it was ready: ${stderr.join('\n')}`)),
      );
    });

    const sent = execFileSync(process.execPath, ['dist/send.js'], { cwd: project, env, encoding: 'utf8' });
    const { sum, greeting } = JSON.parse(sent) as { sum: number; greeting: string };
    expect(sum).toBe(5);
    // A prefork child ran it: the worker found its child entry inside the installed package.
    expect(greeting).toMatch(/^hello you from \d+$/);
    expect(greeting).not.toBe(`hello you from ${started.pid}`);

    started.kill('SIGTERM');
    await expect(exited).resolves.toBe(0);
    expect(messages).toContain('Worker exited cleanly');
    // A strict compile of the installed packages' declarations and a prefork worker's start: on a
    // busy machine this passed 30 s once the dashboard's package joined them.
  }, 90_000);
});
