/**
 * Celeriac as a new user meets it, following docs/getting-started.md word for word: the one tarball
 * `npm run pack` writes (run through its script), installed into a fresh CommonJS project and a
 * fresh ES module project outside the workspace, with the guide's package.json, tsconfig.json and
 * source files (read from the guide itself); `npx tsc`; then `node dist/main.js` (an in-process
 * worker) and `celeriac worker` from the project's bin with `node dist/send.js` sending to it, on
 * Redis. Runs the built packages: `npm test` builds first.
 *
 * The guide's only change here is the app's key prefix, made unique to this run. The installs take
 * the third-party packages from npm's cache when `npm ci` put them there (the registry otherwise), at
 * the versions the workspace uses; nothing of Celeriac's comes from a registry: it is all in the
 * tarball.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { adminClient, deleteKeysUnder, freshPrefix, REDIS_URL } from '@celeriac/test-support';

const ROOT = resolve(__dirname, '../../../..');
const GUIDE = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'packages/celeriac/package.json'), 'utf8')) as { version: string })
  .version;
const BUNDLED = [
  '@celeriac/amqp',
  '@celeriac/beat',
  '@celeriac/celery',
  '@celeriac/core',
  '@celeriac/dashboard',
  '@celeriac/postgres',
  '@celeriac/redis',
  '@celeriac/worker',
];
const run = promisify(execFile);

/** The code block that follows `<!-- getting-started: name -->` in the guide. */
function fromGuide(name: string): string {
  const marker = `<!-- getting-started: ${name} -->\n`;
  const at = GUIDE.indexOf(marker);
  if (at < 0) throw new Error(`docs/getting-started.md has no block marked ${name}`);
  const block = /^```[a-z]*\n([\s\S]*?)^```$/m.exec(GUIDE.slice(at + marker.length));
  if (block?.[1] === undefined) throw new Error(`docs/getting-started.md: no code block after ${marker}`);
  return block[1];
}

/** The version the workspace itself uses of a package the user project installs too (cached by `npm ci`). */
function workspaceVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

const FORMATS = ['commonjs', 'esm'] as const;
type Format = (typeof FORMATS)[number];

interface Project {
  dir: string;
  prefix: string;
  env: NodeJS.ProcessEnv;
}

/** Makes the guide's project in `dir` and installs the tarball into it, as the guide says. */
async function makeProject(dir: string, format: Format, tarball: string): Promise<Project> {
  const prefix = freshPrefix(`e2e-install-${format}`);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), fromGuide(`${format}/package.json`));
  writeFileSync(join(dir, 'tsconfig.json'), fromGuide(`${format}/tsconfig.json`));
  const tasks = fromGuide('src/tasks.ts');
  expect(tasks.split("prefix: 'myapp'")).toHaveLength(2);
  writeFileSync(join(dir, 'src/tasks.ts'), tasks.replace("prefix: 'myapp'", `prefix: '${prefix}'`));
  for (const file of ['src/main.ts', 'src/send.ts']) writeFileSync(join(dir, file), fromGuide(file));
  const npm = (args: string[]) =>
    run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...args], { cwd: dir });
  await npm([tarball, `reflect-metadata@${workspaceVersion('reflect-metadata')}`]);
  await npm(['--save-dev', ...['typescript', '@types/node'].map((name) => `${name}@${workspaceVersion(name)}`)]);
  return { dir, prefix, env: { ...process.env, CELERIAC_BROKER: REDIS_URL } };
}

describe('the packed tarball, installed as docs/getting-started.md says', () => {
  let work: string;
  let tarball: string;
  const projects = new Map<Format, Project>();
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'celeriac-install-'));
    const packed = execFileSync(process.execPath, [join(ROOT, 'scripts/pack.mjs'), join(work, 'packs')], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .trim()
      .split('\n');
    // One tarball: what a user installs is one package.
    expect(packed.map((path) => basename(path))).toEqual([`celeriac-${VERSION}.tgz`]);
    tarball = packed[0]!;
    const made = await Promise.all(
      FORMATS.map((format) => makeProject(join(work, format), format, tarball).then((project) => [format, project])),
    );
    for (const [format, project] of made as [Format, Project][]) projects.set(format, project);
  }, 180_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    const redis = adminClient();
    for (const { prefix } of projects.values()) await deleteKeysUnder(redis, prefix);
    await redis.quit();
    rmSync(work, { recursive: true, force: true });
  });

  const project = (format: Format): Project => {
    const made = projects.get(format);
    if (made === undefined) throw new Error(`the ${format} project was not made`);
    return made;
  };

  it('installs one package, with the packages it is built from inside it and nothing of them outside', () => {
    const { dir } = project('commonjs');
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['celeriac', 'reflect-metadata']);
    expect(existsSync(join(dir, 'node_modules/@celeriac'))).toBe(false);
    const celeriac = join(dir, 'node_modules/celeriac');
    expect(lstatSync(celeriac).isSymbolicLink()).toBe(false);
    expect(readdirSync(join(celeriac, 'node_modules/@celeriac')).map((name) => `@celeriac/${name}`)).toEqual(BUNDLED);
    for (const dir of [celeriac, ...BUNDLED.map((name) => join(celeriac, 'node_modules', name))]) {
      const files = filesUnder(dir).filter((file) => !file.startsWith('node_modules/'));
      expect(
        files.filter(
          (file) =>
            !/^(dist\/|package\.json$|README|LICENSE)/.test(file) &&
            !/^(bin|src\/scripts|src\/kombu-redis\/scripts|ui)\//.test(file),
        ),
      ).toEqual([]);
      expect(files.filter((file) => /\.map$|tsbuildinfo/.test(file))).toEqual([]);
    }
    // The Lua scripts each package reads at run time ship beside its dist/.
    for (const scripts of ['redis/src/scripts', 'celery/src/kombu-redis/scripts']) {
      const files = filesUnder(join(celeriac, 'node_modules/@celeriac', scripts));
      expect(files.some((file) => file.endsWith('.lua'))).toBe(true);
    }
    expect(filesUnder(join(celeriac, 'node_modules/@celeriac/dashboard/ui'))).toContain('app.js');
    // The bundled packages' own dependencies came from the registry, as celeriac's.
    for (const name of ['ioredis', 'superjson', 'cron-parser', 'prom-client', 'preact']) {
      expect(existsSync(join(dir, 'node_modules', name, 'package.json'))).toBe(true);
    }
  });

  it('passes `npm publish --dry-run`: the registry would get celeriac and its bundle', async () => {
    const { stdout } = await run('npm', ['publish', '--dry-run', '--json', tarball], { cwd: work });
    const published = (JSON.parse(stdout) as Record<string, { name: string; version: string; bundled: string[] }>)
      .celeriac;
    expect(published).toMatchObject({ name: 'celeriac', version: VERSION });
    expect([...(published?.bundled ?? [])].sort()).toEqual(BUNDLED);
  });

  it('serves `celeriac` and `celeriac/testing` to require and import, and refuses other paths', () => {
    const { dir } = project('commonjs');
    const resolveIn = (specifier: string): string => {
      const script =
        `try { console.log(require.resolve(${JSON.stringify(specifier)})); } catch (error) { ` +
        `console.log(error.code); }`;
      return execFileSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' }).trim();
    };
    expect(resolveIn('celeriac/testing')).toBe(join(dir, 'node_modules/celeriac/dist/testing.js'));
    expect(resolveIn('celeriac/dist/index.js')).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(resolveIn('@celeriac/core')).toBe('MODULE_NOT_FOUND');
    const esm =
      "import { Celeriac, task, Worker } from 'celeriac'; import { runBrokerConformance } from 'celeriac/testing'; " +
      'console.log([Celeriac, task, Worker, runBrokerConformance].map((value) => typeof value).join());';
    expect(
      execFileSync(process.execPath, ['--input-type=module', '-e', esm], { cwd: dir, encoding: 'utf8' }).trim(),
    ).toBe('function,function,function,function');
  });

  describe.each(FORMATS)('a %s project', (format) => {
    it('compiles with `npx tsc`; `node dist/main.js` prints 5 from an in-process worker on Redis', async () => {
      const { dir, env } = project(format);
      await run('npx', ['tsc'], { cwd: dir });
      const emitted = readFileSync(join(dir, 'dist/main.js'), 'utf8');
      // The format the guide promises: CommonJS requires, ES modules import.
      expect(emitted.includes('require("./tasks.js")')).toBe(format === 'commonjs');
      expect(emitted.includes("from './tasks.js'")).toBe(format === 'esm');
      const { stdout } = await run(process.execPath, ['dist/main.js'], { cwd: dir, env });
      expect(stdout.trim()).toBe('5');
    }, 90_000);

    // A worker with its prefork child, and a sender: each a process of its own.
    it('runs `celeriac worker -A ./dist/tasks.js` from the bin; `node dist/send.js` gets 2 + 3 = 5', async () => {
      const { dir, env } = project(format);
      if (!existsSync(join(dir, 'dist/send.js'))) await run('npx', ['tsc'], { cwd: dir });
      const started = spawn(
        join(dir, 'node_modules/.bin/celeriac'),
        ['worker', '-A', './dist/tasks.js', '-c', '1', '--json-logs'],
        { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
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
      const { stdout } = await run(process.execPath, ['dist/send.js'], { cwd: dir, env });
      expect(stdout.trim()).toBe('2 + 3 = 5');
      started.kill('SIGTERM');
      await expect(exited).resolves.toBe(0);
      expect(messages).toContain('Worker exited cleanly');
    }, 90_000);
  });

  it('type-checks strictly (no skipLibCheck), and under node16 and bundler resolution', async () => {
    const { dir } = project('esm');
    const check = async (name: string, compilerOptions: Record<string, unknown>): Promise<void> => {
      writeFileSync(
        join(dir, name),
        JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: true, ...compilerOptions } }),
      );
      await run('npx', ['tsc', '-p', name], { cwd: dir });
    };
    writeFileSync(
      join(dir, 'src/own-transport.ts'),
      "import type { BrokerFactory } from 'celeriac/testing';\nexport type Factory = BrokerFactory;\n",
    );
    await Promise.all([
      check('tsconfig.strict.json', { skipLibCheck: false }),
      check('tsconfig.node16.json', { module: 'node16', moduleResolution: 'node16' }),
      check('tsconfig.bundler.json', { module: 'preserve', moduleResolution: 'bundler' }),
    ]);
  }, 120_000);
});
