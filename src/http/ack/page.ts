// The HTML of an acknowledge link: the alert in a few words and one button. The button posts
// to the link itself (no script), so a person acknowledges with one press while link
// previews and mail scanners, which follow GETs, change nothing. Styled by the console's
// stylesheet for public pages (/assets/share.css).
import type { AlertJson } from '../../alerts/model.js';
import { escapeHtml, linkPage } from '../public/linkPage.js';

const page = (title: string, body: string) => linkPage({ title, mainClass: 'share ack', body });

function facts(alert: AlertJson): string {
  return [`${alert.agent} / ${alert.event}`, `severity: ${alert.severity}`, `triggered at ${alert.triggered_at}`].map(escapeHtml).join(' · ');
}

/** The page of a working link: what the alert is, and the button. */
export function ackPage(alert: AlertJson): string {
  return page(
    `Acknowledge: ${alert.title}`,
    `<header>
<h1>${escapeHtml(alert.title)}</h1>
<p class="facts">${facts(alert)}</p>
</header>
<p>This alert is triggered and nobody has acknowledged it yet. Acknowledging it stops its reminders and escalation.</p>
<form method="post">
<button type="submit" id="acknowledge" class="primary">Acknowledge</button>
</form>`,
  );
}

/** The page after the button was pressed. */
export function acknowledgedPage(alert: AlertJson): string {
  return page(
    `Acknowledged: ${alert.title}`,
    `<header>
<h1>${escapeHtml(alert.title)}</h1>
<p class="facts">${facts(alert)}</p>
</header>
<p class="acknowledged" role="status">Acknowledged at ${escapeHtml(String(alert.acknowledged_at))}. Reminders and escalation have stopped.</p>`,
  );
}

/** The page of every refused link: it says nothing about why. */
export function ackLinkNotFoundPage(): string {
  return page(
    'Link not found',
    `<h1>Link not found</h1>
<p>This acknowledge link does not work: it may be mistyped, or the alert is no longer waiting for an acknowledgement.</p>`,
  );
}
