// What a person sees of a console page, for the browser tests: its visible text (with the
// options of its selects and the placeholders of its fields), what of it reads like the API,
// whether the page is wider than the screen, whether a form asks for its key last, whether a
// phone's choices are large enough for a finger, whether a control is on screen and not covered
// or clipped, and how much of a chart's series the canvas shows.
import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { screenshotDir } from './browser.js';

/** API values that must never reach a person: operators, aggregates, field and value names, and what a bug prints. */
const API_VALUE =
  /\b(?:gt|gte|lt|lte|p95_est|p99_est|null|undefined|NaN|no_verdict|no_data|previous_bucket|previous_1d|previous_7d|compare_to|policy_ids|alert\.(?:triggered|resolved|reminder|escalated|group))\b|\[object Object\]/gi;

/** The page's text as a person reads it: what is rendered, every option of every select, and placeholders. */
export async function visibleText(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const parts = [document.body.innerText];
    for (const o of document.querySelectorAll('option')) parts.push(o.textContent);
    for (const el of document.querySelectorAll('[placeholder]')) parts.push(el.getAttribute('placeholder'));
    for (const el of document.querySelectorAll('[title]')) parts.push(el.getAttribute('title'));
    return parts.join(String.fromCharCode(10));
  })()`);
}

/** Each API value in the page's text, with the words around it. */
export async function apiValuesShown(page: Page): Promise<string[]> {
  const text = await visibleText(page);
  return [...text.matchAll(API_VALUE)].map((m) => `"${m[0]}" in "…${text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 40).replace(/\s+/g, ' ')}…"`);
}

/** The times shown (<time> elements) that do not name their zone, e.g. "(Europe/Berlin)". */
export async function timesWithoutZone(page: Page): Promise<string[]> {
  const times = await page.locator('time').allTextContents();
  return times.filter((t) => !/\((?:UTC|[A-Za-z_]+(?:\/[A-Za-z_+-]+)+)\)$/.test(t.trim()));
}

/**
 * The headings of the forms on the page whose Key field (how a configuration file names the
 * object, which not everybody keeps) comes before another of their fields: it belongs last.
 */
export async function keyFieldsNotLast(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const late = [];
    for (const form of document.querySelectorAll('form')) {
      const fields = [...form.querySelectorAll('.field, fieldset')];
      const key = fields.findIndex((f) => f.matches('.field') && f.querySelector(':scope > label')?.textContent.trim() === 'Key');
      if (key >= 0 && key < fields.length - 1) late.push((form.querySelector('h2, h3') ?? form.querySelector('button[type=submit]'))?.textContent.trim() ?? 'a form');
    }
    return late;
  })()`);
}

/** The smallest target a finger is given on a phone, in CSS pixels (WCAG 2.2, target size minimum). */
const PHONE_TARGET_PX = 24;

/**
 * On a screen as narrow as a phone's (≤ 720 px), the checkboxes and radio buttons shown that
 * are smaller than a finger's target, by their label or id; none on a wider screen.
 */
export async function smallTargetsOnPhone(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    if (window.innerWidth > 720) return [];
    const small = [];
    for (const input of document.querySelectorAll('input[type=checkbox], input[type=radio]')) {
      const box = input.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.width < ${PHONE_TARGET_PX} || box.height < ${PHONE_TARGET_PX})
        small.push((input.labels?.[0]?.textContent.trim() || input.id) + ' (' + Math.round(box.width) + ' × ' + Math.round(box.height) + ' px)');
    }
    return small;
  })()`);
}

/** How far the page reaches past the right edge of the screen, in CSS pixels (0: it fits). */
export async function overflowPx(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
}

/** Signs in on the console's first page with a workspace token and waits for the Events page. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('Workspace token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
}

export interface LookOptions {
  /** Whether to check that the page shows no API value (default true; false where it shows the user's own label names). */
  readonly apiValues?: boolean;
  /** Whether every time must name its zone (default true). */
  readonly zones?: boolean;
}

/**
 * What a person would find wrong with the page now, each in words: an API value in its text,
 * a time without its zone, a form asking for its key before its other fields, on a phone a
 * choice too small for a finger, a page wider than the screen. None: it reads as it should.
 */
export async function pageProblems(page: Page, { apiValues = true, zones = true }: LookOptions = {}): Promise<string[]> {
  const problems: string[] = [];
  if (apiValues) for (const shown of await apiValuesShown(page)) problems.push(`API value ${shown}`);
  if (zones) for (const time of await timesWithoutZone(page)) problems.push(`a time without its zone: "${time}"`);
  for (const form of await keyFieldsNotLast(page)) problems.push(`"${form}" asks for the key before other fields`);
  for (const choice of await smallTargetsOnPhone(page)) problems.push(`a choice too small for a finger: ${choice}`);
  const overflow = await overflowPx(page);
  if (overflow > 0) problems.push(`the page is ${overflow} px wider than the screen`);
  return problems;
}

/**
 * The page has none of pageProblems; and a screenshot of it for a person to look at
 * (test-artifacts/screenshots/<name>.png).
 */
export async function lookAt(page: Page, name: string, options: LookOptions = {}): Promise<void> {
  expect(await pageProblems(page, options), name).to.deep.equal([]);
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: true });
}

/** Scrolls the control into view and checks that all of it is on screen and that it, not something over it, takes a tap at its centre. */
export async function expectWithinReach(page: Page, control: Locator): Promise<void> {
  await control.scrollIntoViewIfNeeded();
  const box = await control.boundingBox();
  const viewport = page.viewportSize()!;
  expect(box, 'the control has a box').to.not.equal(null);
  const { x, y, width, height } = box!;
  expect(x, 'its left edge on screen').to.be.at.least(0);
  expect(x + width, 'its right edge on screen').to.be.at.most(viewport.width);
  expect(y, 'its top on screen').to.be.at.least(0);
  expect(y + height, 'its bottom on screen').to.be.at.most(viewport.height);
  // Not clipped by a scrolling box nor covered: the element at its centre is it.
  const hit = await control.evaluate(
    (el, [cx, cy]) => {
      const top = el.ownerDocument.elementFromPoint(cx!, cy!);
      return top !== null && (top === el || el.contains(top));
    },
    [x + width / 2, y + height / 2],
  );
  expect(hit, 'a tap at its centre reaches it').to.equal(true);
}

export interface SeriesPixels {
  /** Canvas pixels of the series' colour. */
  readonly pixels: number;
  /** Pixel columns holding some, and the canvas' width: how much of the time axis they cover. */
  readonly columns: number;
  readonly width: number;
  /** Runs of neighbouring pixel columns holding some: one per point or line, where they do not touch. */
  readonly runs: number;
}

/** Pixels of the series colour (#0b57d0) on the chart's canvas. */
export async function seriesPixels(page: Page, chart = '.chart'): Promise<SeriesPixels> {
  return page.evaluate<SeriesPixels>(`(() => {
    const canvas = document.querySelector(${JSON.stringify(`${chart} canvas`)});
    if (!canvas) return { pixels: 0, columns: 0, width: 0, runs: 0 };
    const { width, height } = canvas;
    const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const columns = new Uint8Array(width);
    let pixels = 0;
    for (let i = 0; i < data.length; i += 4) {
      const near = Math.abs(data[i] - 11) < 40 && Math.abs(data[i + 1] - 87) < 40 && Math.abs(data[i + 2] - 208) < 40 && data[i + 3] > 200;
      if (near) { pixels++; columns[(i / 4) % width] = 1; }
    }
    let runs = 0;
    let filled = 0;
    for (let x = 0; x < width; x++) {
      if (columns[x] && !columns[x - 1]) runs++;
      filled += columns[x];
    }
    return { pixels, columns: filled, width, runs };
  })()`);
}
