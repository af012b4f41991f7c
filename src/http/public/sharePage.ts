// The HTML of a share page. Everything a link preview reads (the <title> and the Open Graph
// tags) is in the HTML as served; the chart is drawn by /assets/share.js from the data
// embedded below (a JSON block, which no CSP counts as script), then refreshed from the public read.
import { escapeHtml, linkPage } from './linkPage.js';
import type { SharedEventJson } from './representation.js';

/** JSON that cannot close the <script> element it sits in. */
const embeddedJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** What a link preview shows: the title and description as Open Graph and Twitter tags. */
function previewTags(title: string, description: string): string {
  const t = escapeHtml(title);
  const d = escapeHtml(description);
  return `
<meta name="description" content="${d}">
<meta property="og:type" content="website">
<meta property="og:site_name" content="alertmon">
<meta property="og:title" content="${t}">
<meta property="og:description" content="${d}">
<meta name="twitter:card" content="summary">
<meta name="twitter:title" content="${t}">`;
}

/** The page of a shared event: title, unit, description, and a chart of its rollups. */
export function sharePage(shared: SharedEventJson): string {
  const e = shared.event;
  const name = e.title ?? e.event;
  const source = `${e.agent} / ${e.event}`;
  const facts = [source, e.unit ? `unit: ${e.unit}` : null, `timezone: ${e.timezone}`].filter((f) => f !== null).join(' · ');
  const body = `<header>
<h1>${escapeHtml(name)}</h1>
<p class="facts">${escapeHtml(facts)}</p>
${e.description ? `<p class="description">${escapeHtml(e.description)}</p>` : ''}
</header>
<div id="chart-root" class="chart-root"><p class="loading">Loading the chart…</p></div>
<noscript><p>The chart needs JavaScript.</p></noscript>
<footer><p>Shared with alertmon. Refreshes every 10 seconds.</p></footer>
<script type="application/json" id="share-data">${embeddedJson(shared)}</script>`;
  const description = e.description || `${source}: a chart of its recent values, shared with alertmon.`;
  return linkPage({
    title: name,
    head: `${previewTags(name, description)}\n<script type="module" src="/assets/share.js"></script>`,
    mainClass: 'share',
    body,
  });
}

/** The page of every refused share link: it says nothing about why. */
export function linkNotFoundPage(): string {
  return linkPage({
    title: 'Link not found',
    head: previewTags('Link not found', 'This share link does not work.'),
    mainClass: 'share',
    body: `<h1>Link not found</h1>
<p>This share link does not work. It may have been mistyped or replaced by a new link, or the event is no longer shared.</p>`,
  });
}
