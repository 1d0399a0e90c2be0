/**
 * Debian's Chromium driven by playwright-core. Never downloads a browser:
 * when /usr/bin/chromium is missing, browser tests are skipped (CI installs it).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM_PATH);
export const SKIP_REASON = `no Chromium at ${CHROMIUM_PATH} (install Debian's chromium package or set CHROMIUM_PATH)`;

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** Headless Chromium; playwright gives each browser context its own fresh profile. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}
