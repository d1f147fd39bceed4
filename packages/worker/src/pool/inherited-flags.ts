/**
 * The Node flags a pool child inherits from its worker (`--require`, `--enable-source-maps`,
 * `--inspect`...), without the worker's own code: under `node -e`/`-p` the script is a flag, and a
 * child given it would run the worker's script instead of its own entry.
 */

/** Flags that take the script to run as their next argument. */
const SCRIPT_FLAGS = new Set(['-e', '--eval', '-p', '--print', '-pe', '-ep']);

/** `execArgv` without the flags (and values) that carry a script to evaluate. */
export function inheritedFlags(execArgv: readonly string[]): string[] {
  const flags: string[] = [];
  for (let i = 0; i < execArgv.length; i += 1) {
    const flag = execArgv[i] as string;
    if (SCRIPT_FLAGS.has(flag)) i += 1;
    else if (!flag.startsWith('--eval=') && !flag.startsWith('--print=')) flags.push(flag);
  }
  return flags;
}
