// Shared so every *.browser.test.ts launches the same headless Chromium and sets up pages with the same checks.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where screenshots land (git-ignored), for a human look. */
export const ARTIFACTS = path.join(__dirname, '..', 'artifacts');

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

export interface BrowserSuite {
  /** A page in a context of its own: no language cookie of one test reaches another. */
  newPage(): Promise<Page>;
  /** Makes script errors on a page the browser opened by itself (a popup) fail the test too. */
  watch(page: Page): void;
}

/** Launches Chromium before the file's tests and closes it after; a script error on a page fails its test. */
export function useBrowser(): BrowserSuite {
  let browser: Browser | undefined;
  const scriptErrors: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (err) => scriptErrors.push(err.message));
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
  });
  // A script error on our pages fails the test that caused it instead of passing unnoticed.
  afterEach(() => {
    expect(scriptErrors.splice(0)).toEqual([]);
  });

  return {
    async newPage() {
      if (!browser) throw new Error('Chromium is not running here: open pages inside tests');
      const page = await browser.newPage({ viewport: { width: 1024, height: 900 } });
      watch(page);
      return page;
    },
    watch,
  };
}
