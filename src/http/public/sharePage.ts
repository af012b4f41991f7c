// The HTML of a share page. Everything a link preview reads (the <title> and the Open Graph
// tags) is in the HTML as served; the chart is drawn by /assets/share.js from the data
// embedded below (a JSON block, which no CSP counts as script), then refreshed from the public read.
import type { SharedEventJson } from './representation.js';

/** Text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that cannot close the <script> element it sits in. */
const embeddedJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function page(head: { title: string; description: string }, body: string, withChart: boolean): string {
  const title = escapeHtml(head.title);
  const description = escapeHtml(head.description);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="icon" href="data:,">
<meta name="description" content="${description}">
<meta property="og:type" content="website">
<meta property="og:site_name" content="alertmon">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta name="twitter:card" content="summary">
<meta name="twitter:title" content="${title}">
<link rel="stylesheet" href="/assets/share.css">${withChart ? '\n<script type="module" src="/assets/share.js"></script>' : ''}
</head>
<body>
<main class="share">
${body}
</main>
</body>
</html>
`;
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
  return page({ title: name, description: e.description || `${source}: a chart of its recent values, shared with alertmon.` }, body, true);
}

/** The page of every refused link: it says nothing about why. */
export function linkNotFoundPage(): string {
  return page(
    { title: 'Link not found', description: 'This share link does not work.' },
    `<h1>Link not found</h1>
<p>This share link does not work. It may have been mistyped or replaced by a new link, or the event is no longer shared.</p>`,
    false,
  );
}

export function tooManyRequestsPage(retryAfterSeconds: string): string {
  return page(
    { title: 'Too many requests', description: 'Too many requests from this address.' },
    `<h1>Too many requests</h1>
<p>Too many requests came from your address. Try again in ${escapeHtml(retryAfterSeconds)} seconds.</p>`,
    false,
  );
}
