/**
 * The whole example in one command. Starts two `celeriac beat` schedulers (lease 2 s) and an
 * in-process worker on one Redis; lets the leader fire a few slots; kills it with SIGKILL; watches
 * the standby take over and fire the next slots; adds a runtime entry through the API and removes
 * it; stops the standby with SIGTERM; then checks that every slot fired once, none went missing and
 * every task ran, and deletes this run's keys. Exits 0 when all of that held.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { every } from 'celeriac';
import { Redis } from 'ioredis';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const PREFIX = `celeriac-example-beat-${randomBytes(4).toString('hex')}`;
process.env.CELERIAC_EXAMPLE_PREFIX = PREFIX;
process.env.REDIS_URL = REDIS_URL;
const CLI = resolve(__dirname, '../../../packages/celeriac/dist/cli/main.js');

/** One JSON log line of a scheduler. */
interface Line {
  msg: string;
  [field: string]: unknown;
}

/** A `celeriac beat` child process, its log lines printed as `<name> | message`. */
class Beat {
  readonly lines: Line[] = [];
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  private readonly waiters = new Set<() => void>();

  constructor(readonly name: string) {
    this.child = spawn(
      process.execPath,
      [CLI, 'beat', '-A', join(__dirname, 'tasks.js'), '--lease', '2s', '--id', name, '--json-logs'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.exited = new Promise((done) => this.child.once('exit', (code) => done(code)));
    createInterface({ input: this.child.stdout! }).on('line', (text) => {
      const line = JSON.parse(text) as Line;
      this.lines.push(line);
      console.log(
        `${name.padEnd(6)} | ` +
          `${line.msg}${line.slot ? ` ${(line.slot as string).slice(11, 19)} (${String(line.late)} ms late)` : ''}`,
      );
      this.waiters.forEach((wake) => wake());
    });
  }

  /** Resolves once `count` lines match (within 20 s). */
  until(match: (line: Line) => boolean, count = 1): Promise<void> {
    return new Promise((done, fail) => {
      const check = () => {
        if (this.lines.filter(match).length < count) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        done();
      };
      const timer = setTimeout(() => fail(new Error(`${this.name} did not log that within 20 s`)), 20_000);
      this.waiters.add(check);
      check();
    });
  }

  fired(entry = 'heartbeat'): string[] {
    return this.lines.filter((line) => line.msg === `Fired ${entry}`).map((line) => String(line.id));
  }
}

async function main(): Promise<number> {
  // Loaded after the prefix is in the environment (the module reads it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- an import would load it before the prefix is set
  const { app } = require('./tasks') as typeof import('./tasks');
  try {
    await app.beat.list(); // fails within seconds when Redis does not answer
  } catch (error) {
    console.error(`This example needs Redis at ${REDIS_URL}: ${(error as Error).message}`);
    await app.close();
    return 1;
  }
  const worker = app.worker({ pool: 'inline', concurrency: 4 });
  await worker.start();
  const first = new Beat('beat-a');
  const second = new Beat('beat-b');
  try {
    await first.until((line) => line.msg.endsWith(' ready'));
    await second.until((line) => line.msg.endsWith(' ready'));
    // Whichever took the lease first leads; the other stands by.
    const [leader, standby] = first.lines.some((line) => line.msg.startsWith('Leading'))
      ? [first, second]
      : [second, first];
    await leader.until((line) => line.msg === 'Fired heartbeat', 4);

    console.log(`demo   | kill -9 ${leader.child.pid} (the leader, ${leader.name})`);
    leader.child.kill('SIGKILL');
    await leader.exited;
    await standby.until((line) => line.msg.startsWith('Leading'));
    await standby.until((line) => line.msg === 'Fired heartbeat', 4);

    console.log('demo   | app.beat.add("greeting", every 1s) from this process');
    await app.beat.add('greeting', { task: 'demo.heartbeat', schedule: every('1s'), args: ['a runtime entry'] });
    await standby.until((line) => line.msg === 'Fired greeting', 2);
    for (const entry of await app.beat.list())
      console.log(
        `demo   | entry ${entry.name}: ${entry.description} (${entry.source}), next ` +
          `${new Date(entry.next ?? 0).toISOString()}`,
      );
    await app.beat.remove('greeting');
    await standby.until((line) => line.msg.startsWith('Entries changed'), 2); // the add, then the removal

    console.log(`demo   | kill -TERM ${standby.child.pid}`);
    standby.child.kill('SIGTERM');
    if ((await standby.exited) !== 0) throw new Error('the standby did not exit with code 0 after SIGTERM');

    const ids = [...first.fired(), ...second.fired()];
    const slots = ids.map((id) => Number(id.split(':')[2])).sort((a, b) => a - b);
    if (new Set(ids).size !== ids.length) throw new Error('a slot fired twice');
    const gaps = slots.slice(1).filter((slot, index) => slot - slots[index]! !== 1_000);
    if (gaps.length > 0)
      throw new Error(`slots went missing before ${gaps.map((slot) => new Date(slot).toISOString()).join(', ')}`);
    const results = await Promise.all(ids.map((id) => app.result<string>(id).get({ timeout: '10s' })));
    console.log(
      `demo   | ${ids.length} heartbeat slots from ${new Date(slots[0]!).toISOString().slice(11, 19)} to ` +
        `${new Date(slots[slots.length - 1]!).toISOString().slice(11, 19)}: each fired once, none missing, all ran ` +
        `("${results[0]}")`,
    );
    return 0;
  } catch (error) {
    console.error(`Demo failed: ${(error as Error).message}`);
    return 1;
  } finally {
    for (const beat of [first, second])
      if (beat.child.exitCode === null && beat.child.signalCode === null) beat.child.kill('SIGKILL');
    await Promise.all([first.exited, second.exited]);
    await app.close();
    console.log(`demo   | cleaned up ${await deleteKeys()} key(s) under ${PREFIX}:`);
  }
}

/** Deletes this run's keys (SCAN for the prefix, UNLINK), and nothing else. */
async function deleteKeys(): Promise<number> {
  const redis = new Redis(REDIS_URL);
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  await redis.quit();
  return deleted;
}

void main().then((code) => {
  process.exitCode = code;
});
