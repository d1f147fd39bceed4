/**
 * A reader that stops reading (`celeriac events --json | head -2`) closes the pipe: the next write
 * fails with EPIPE, which Node would raise as an uncaught error with a stack. The command ends quietly
 * instead, with exit code 0, as a Unix tool does when its reader has what it wanted.
 */

/** Makes a closed stdout or stderr end the process quietly. */
export function exitQuietlyOnClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
}
