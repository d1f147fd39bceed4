/**
 * A headless Chromium for the dashboard's browser tests and screenshots: Debian's `chromium`
 * (`.ci/run` installs it), driven by playwright-core, with a fresh empty profile that is removed on
 * close.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

/** Where Debian installs Chromium. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** A browser context and its closing (which also deletes its profile). */
export interface TestBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium on a new empty profile. */
export async function launchBrowser(viewport = { width: 1280, height: 860 }): Promise<TestBrowser> {
  // Loaded here, not at the top: every test imports this package, few drive a browser.
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'celeriac-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
