import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `body` with a gate of its own for the fixture's `e2e.spinUntil` task: a file path to pass to
 * the task, and `open()`, which creates the file and so lets the task end. The file is removed
 * afterwards.
 */
export async function withFileGate(body: (gate: string, open: () => void) => Promise<void>): Promise<void> {
  const gate = join(tmpdir(), `celeriac-e2e-gate-${randomBytes(4).toString('hex')}`);
  try {
    await body(gate, () => writeFileSync(gate, ''));
  } finally {
    rmSync(gate, { force: true });
  }
}
