// Headless Chromium for the browser tests: Debian's chromium package driven by playwright-core
// (which downloads no browser of its own). Flags: no sandbox (tests run as root), and no
// background networking, which this machine's closed network would refuse at every start.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { projectRoot } from '../../src/paths.js';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = () => existsSync(chromiumPath);

/** Where a failed browser test leaves its screenshot (gitignored). */
export const screenshotDir = path.join(projectRoot, 'test-artifacts', 'screenshots');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  readonly context: BrowserContext;
  newPage(): Promise<Page>;
  /** Saves a full-page screenshot of each open page; returns the files. */
  screenshots(name: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface BrowserOptions {
  /** The browser's own time zone (an IANA name); the machine's by default. */
  readonly timezoneId?: string;
}

export async function launchBrowser(options: BrowserOptions = {}): Promise<TestBrowser> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'alertmon-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
  });
  // A persistent context opens with a blank page; each test opens its own.
  for (const blank of context.pages()) await blank.close();
  return {
    context,
    newPage: () => context.newPage(),
    async screenshots(name) {
      mkdirSync(screenshotDir, { recursive: true });
      const files: string[] = [];
      for (const [i, page] of context.pages().entries()) {
        const file = path.join(screenshotDir, `${name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 80)}-${i}.png`);
        await page.screenshot({ path: file, fullPage: true }).then(
          () => files.push(file),
          () => {},
        );
      }
      return files;
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Ms from the page's navigation to the first drawn chart (the mark the chart code sets). */
export async function timeToFirstChart(page: Page, timeoutMs = 30_000): Promise<number> {
  // Polled from here: page.waitForFunction evaluates its predicate inside the page, which
  // the pages' Content-Security-Policy (no eval) rightly refuses. The figure is the mark's own
  // time, so the polling interval does not change it.
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const startTime = await page.evaluate<number | null>("performance.getEntriesByName('alertmon:first-chart')[0]?.startTime ?? null");
    if (startTime !== null) return startTime;
    if (Date.now() > deadline) throw new Error('no chart was drawn');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The hooks of a browser suite: after a failed test, a screenshot of each open page (its
 * files printed); after the suite, what it opened closed, in order. Getters, as the suite's
 * variables are set in its `before`.
 */
export function browserSuiteHooks(browser: () => TestBrowser | undefined, ...opened: (() => { close(): Promise<unknown> } | undefined)[]): void {
  afterEach(async function () {
    const current = browser();
    if (this.currentTest?.state === 'failed' && current)
      process.stdout.write(`    screenshots: ${(await current.screenshots(this.currentTest.fullTitle())).join(', ')}\n`);
  });
  after(async () => {
    await browser()?.close();
    for (const thing of opened) await thing()?.close();
  });
}
