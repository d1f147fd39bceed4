/**
 * How a pool child dies with its worker, even while its task spins without yielding (so it never
 * reads that its pipe closed).
 *
 * Each child starts as the leader of a process group of its own (`detached`), which what its tasks
 * start joins unless they leave it. One reaper per worker process, a small `/bin/sh` script, reads
 * the groups to watch from a pipe: `+<pgid>` when a child starts, `-<pgid>` when it exited. However
 * the worker ends (SIGKILL included), the kernel closes that pipe, and the reaper sends SIGKILL to
 * every group still listed: the pool children and what their tasks started. It ignores the
 * terminal's Ctrl-C, which reaches the worker's whole group: the worker decides when its children stop.
 *
 * Without `/bin/sh` (Windows) there is no reaper: a child still exits when its pipe closes (the
 * event it waits on between jobs), but one whose task never yields keeps running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The reaper: keeps the listed groups in `$groups` (" 12 34 "), kills what is left at end of input. */
const REAPER_SCRIPT = `trap '' INT TERM HUP
groups=' '
while read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) p=\${line#-}; case $groups in *" $p "*) groups="\${groups%% $p *} \${groups#* $p }" ;; esac ;;
  esac
done
for g in $groups; do kill -9 "-$g" 2>/dev/null; done`;

const SHELL = '/bin/sh';

let reaperWorks: boolean | undefined;
let reaper: ChildProcess | undefined;

/** Whether children can be reaped here (a POSIX shell and process groups): asked once per process. */
function canReap(): boolean {
  reaperWorks ??= process.platform !== 'win32' && existsSync(SHELL);
  return reaperWorks;
}

/** This worker's reaper, started again if it died. */
function liveReaper(): ChildProcess {
  if (!reaper || reaper.exitCode !== null || reaper.signalCode !== null) {
    reaper = spawn(SHELL, ['-c', REAPER_SCRIPT, 'celeriac-reaper'], { stdio: ['pipe', 'ignore', 'ignore'] });
    reaper.on('error', () => undefined);
    reaper.stdin?.on('error', () => undefined);
    // The pipe and the reaper must not keep the worker alive: the worker's end closing is the signal.
    (reaper.stdin as unknown as { unref?(): void } | null)?.unref?.();
    reaper.unref();
  }
  return reaper;
}

/**
 * Puts a child started with `detached: true` (the leader of its own process group) under the
 * reaper's watch until it exits. Does nothing where there is no reaper.
 */
export function watchChildGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined || !canReap()) return;
  const watcher = liveReaper();
  watcher.stdin?.write(`+${pid}\n`);
  child.once('exit', () => {
    // A reaper restarted since does not know the group; telling it is harmless.
    if (watcher === reaper) watcher.stdin?.write(`-${pid}\n`);
  });
}
