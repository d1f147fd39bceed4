/**
 * What corking ioredis's socket saves (`corked` in @celeriac/redis, which reaches into ioredis's
 * private `stream`): batches of three commands, as a worker's settling write sends them, issued
 * corked (one write per batch) and uncorked (one write per command), in alternating blocks.
 *
 * Usage: `npm run bench:corked` (BENCH_SCALE scales the batch count).
 */
import { RedisConnection } from '@celeriac/redis';
import { corked } from '@celeriac/redis/internal';
import type { Redis } from 'ioredis';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const scale = Number(process.env.BENCH_SCALE ?? 1);
const BATCHES = Math.max(100, Math.round(20_000 * scale));
const BLOCK = 500;
const key = `bench-corked-${process.pid}`;

/**
 * Runs `count` batches one after another, each awaited; returns µs of wall time and of this process's CPU per batch.
 */
async function run(client: Redis, count: number, cork: boolean): Promise<{ wall: number; cpu: number }> {
  const send = () => [client.set(key, 'v'), client.get(key), client.pexpire(key, 60_000)];
  const wallStart = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < count; i += 1) await Promise.all(cork ? corked(client, send) : send());
  const cpu = process.cpuUsage(cpuStart);
  return { wall: Number(process.hrtime.bigint() - wallStart) / 1_000 / count, cpu: (cpu.user + cpu.system) / count };
}

async function main(): Promise<void> {
  const connection = new RedisConnection(url).retain();
  const client = connection.client as Redis;
  await client.ping();
  await run(client, 2_000, true);
  await run(client, 2_000, false);
  const totals = { corked: { wall: 0, cpu: 0 }, uncorked: { wall: 0, cpu: 0 } };
  for (let done = 0; done < BATCHES; done += BLOCK) {
    for (const cork of [true, false]) {
      const { wall, cpu } = await run(client, BLOCK, cork);
      const total = cork ? totals.corked : totals.uncorked;
      total.wall += (wall * BLOCK) / BATCHES;
      total.cpu += (cpu * BLOCK) / BATCHES;
    }
  }
  console.log(
    `Batches of SET, GET, PEXPIRE, each awaited, ${BATCHES} per mode in alternating blocks of ${BLOCK}, Redis at ` +
      `${url}.\n`,
  );
  console.log('| mode | µs per batch | µs of CPU per batch (this process) |');
  console.log('| --- | --- | --- |');
  for (const [mode, total] of Object.entries(totals))
    console.log(`| ${mode} | ${total.wall.toFixed(1)} | ${total.cpu.toFixed(1)} |`);
  await client.del(key);
  await connection.release();
}

void main();
