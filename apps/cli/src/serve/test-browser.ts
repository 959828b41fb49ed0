// Test helper: Debian's Chromium driven by playwright-core (never a downloaded browser), headless and
// quiet on the network, for the az serve browser tests.
import { realComponent } from '@az/test-harness';
import type { Browser } from 'playwright-core';

export const chromium = realComponent('chromium', {
  executables: ['chromium', 'chromium-browser', '/usr/bin/chromium'],
  install: 'apt-get install chromium',
  suite: 'the az serve browser tests',
});

export async function launchChromium(): Promise<Browser> {
  const { chromium: launcher } = await import('playwright-core');
  return launcher.launch({
    executablePath: chromium.path,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
