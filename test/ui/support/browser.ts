/**
 * Debian's Chromium driven by playwright-core (`npx playwright install` cannot download a browser here).
 * Headless, no sandbox (tests run as root), and with every background service off: this machine's network
 * reaches nothing but loopback, and the page must not need anything else. Each launch gets a fresh profile.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO } from '../../cli/run';

export const CHROMIUM = process.env.TMKIT_TEST_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
];

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install chromium; .ci/run does this) or set TMKIT_TEST_CHROMIUM to its path`,
    );
  }
  // launch() gives every browser a new, empty --user-data-dir of its own.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, timeout: 60_000 });
}

/** Where screenshots go (gitignored): `artifacts/ui/`, or `$TMKIT_ARTIFACTS_DIR/ui/`. */
export function artifactsDir(): string {
  const dir = join(process.env.TMKIT_ARTIFACTS_DIR ?? join(REPO, 'artifacts'), 'ui');
  mkdirSync(dir, { recursive: true });
  return dir;
}
