/** Processes that are not the test's own children, seen through /proc (they give no exit event). */
import { readdirSync, readFileSync } from 'node:fs';

/** True while process `pid` runs: a zombie (dead, not yet reaped by its new parent) counts as gone. */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Resolves once `pid` is gone; after `ms`, kills it and rejects (it would otherwise run on). */
export async function gone(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  // A process that is not our child gives no event when it ends: look every 20 ms until it is gone.
  while (alive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      throw new Error(`process ${pid} was still running ${ms} ms later`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The child processes of `parent` now. */
export function childrenOf(parent: number): Array<{ pid: number; command: string }> {
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (command) state ppid ...: the command may hold spaces and parentheses.
    const end = stat.lastIndexOf(')');
    if (Number(stat.slice(end + 2).split(' ')[1]) === parent)
      found.push({ pid: Number(entry), command: stat.slice(stat.indexOf('(') + 1, end) });
  }
  return found;
}

/** The process group of `pid` (from /proc), or undefined once it is gone. */
export function processGroupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (command) state ppid pgrp ...
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}
