/** Runs one short command against a loaded app: errors are printed and exit 1; the app is closed. */

/**
 * Runs `work` on the app (once loaded), prints a failure's message and Celeriac code (exit code 1),
 * and closes the app either way.
 */
export async function withApp<A extends { close(): Promise<void> }>(
  loading: A | Promise<A>,
  work: (app: A) => Promise<void>,
): Promise<void> {
  const app = await loading;
  try {
    await work(app);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    console.error(
      typeof code === 'string' && code.startsWith('CELERIAC_')
        ? `${(error as Error).message} (${code})`
        : (error as Error).message,
    );
    process.exitCode = 1;
  } finally {
    await app.close().catch(() => undefined);
  }
}
