// What the console's forms say about each field they know, by form and JSON Pointer: its
// label, help text, option labels and the label of "none". The forms are built from the
// API's schema (schemaForm.tsx); its descriptions are written for API clients ("(default
// null)", "404 otherwise"), so a known field reads these words instead, and a field added
// to the API later reads its description through forPeople (words.ts). A new form adds its
// own entry here.
import type { FieldWord, FieldWords } from './schemaForm.js';

/** Every kind's key: how a configuration file (alerting.yaml, docs/as-code.md) names the object. */
export const KEY_WORD: FieldWord = {
  label: 'Key',
  help: 'How the configuration file names it (a-z, 0-9, _ and -; unique among its kind). Empty: made from the name when exported.',
};

export const POLICY_WORDS: FieldWords = {
  '/key': KEY_WORD,
  '/event_id': { label: 'Event', help: 'The event whose rollups the policy judges.' },
  '/event': { label: 'Event name', help: 'Every agent that sends this event is watched, also the ones that start later.' },
  '/agents': { label: 'Agents', help: 'Names or patterns, one a line; * matches any run of characters (web-* is every web- agent). Empty: every agent.' },
  '/filter': {
    label: 'Only records where',
    help: 'One condition a line, key = value, several values joined by “or” (code = 500 or 503). The key is agent or a declared key of the event name. Empty: every record.',
  },
  '/group_by': { label: 'Group by', help: 'Each group is judged on its own and has its own alert. None: the whole fleet is one group.' },
  '/timezone': { label: 'Timezone of day buckets', help: 'The local days of day buckets and of day comparisons, e.g. Europe/Berlin. Empty: UTC.' },
  '/description': { help: 'What the policy is for, in your words (message templates can show it).' },
  '/channel': { label: 'Routing label', help: 'A label of your own for sorting alerts (where they are sent is the destinations’ choice).' },
  '/period': { help: 'The buckets judged: each minute, hour or day (a day in the event’s timezone).' },
  '/aggregate': { help: 'What is measured in each bucket. Percentiles are estimates.' },
  '/condition': { help: 'How the measure is compared with the threshold.' },
  '/threshold': { help: 'A number; with a comparison (below), a percentage change.' },
  '/pending_buckets': { label: 'Breaching buckets in a row', help: 'An alert is raised only after this many breaching buckets in a row.' },
  '/recovery_threshold': {
    help: 'Once raised, the alert resolves only on a bucket on the good side of this value, not merely of the threshold. Empty: the threshold itself. Not with =.',
  },
  '/no_data': {
    label: 'Buckets without logs',
    help: 'For average, minimum, maximum and the percentiles; count and sum read an empty bucket as 0.',
    options: { no_verdict: 'Not judged', breach: 'Breach', ok: 'Fine' },
  },
  '/compare_to': {
    label: 'Compare with',
    help: 'With a comparison, the threshold is a percentage change of the measure from that bucket. “A day earlier” is not for day buckets.',
    none: 'Nothing: judge the measure itself',
    options: { previous_bucket: 'The bucket before', previous_1d: 'The same bucket a day earlier', previous_7d: 'The same bucket 7 days earlier' },
  },
  '/min_count': { label: 'Fewest logs to judge', help: 'A bucket with fewer logs (with a comparison, either bucket) is not judged. 0: every bucket.' },
  '/renotify_minutes': { label: 'Remind every (minutes)', help: 'While an alert stays triggered, a reminder this often. Empty: no reminders.' },
  '/escalation_policy_id': { label: 'Escalation policy', help: 'While an alert stays triggered, its steps page their destinations. None: no escalation.' },
};

export const DESTINATION_WORDS: FieldWords = {
  '/key': KEY_WORD,
  '/channel': { help: 'Where the notifications go.' },
  '/url': { help: '' },
  '/credentials': { label: 'Credentials', help: 'Shown abbreviated once saved.' },
  '/credentials/bot_token': { label: 'Bot token', help: 'From @BotFather.' },
  '/credentials/chat_id': { label: 'Chat ID', help: 'The chat, group or channel the bot writes to.' },
  '/credentials/authorization': { label: 'Authorization header value', help: 'Sent with every request, e.g. “Bearer …”. Optional.' },
  '/scope': { label: 'Sends', help: '', options: { all: 'Every alert of the workspace', policies: 'Alerts of the policies chosen below' } },
  '/policy_ids': { label: 'Policies' },
  '/enabled': { help: 'Only an enabled destination receives alerts; a test send works either way.' },
  '/group_window_seconds': {
    label: 'Group window (seconds)',
    help: '0: each notification is its own message. More: the first alert after a quiet spell goes at once, and those that follow within this many seconds go together as one message at the end of the window.',
  },
  '/title_template': { help: 'Mustache template of the title (chat: the bold first line; email: the subject). Empty: the built-in title.' },
  '/message_template': { help: 'Mustache template of the text under the title. Empty: the built-in text.' },
  '/body_template': { help: 'Mustache template of the whole JSON body; it must make a JSON object (put text variables in quotes). Empty: the built-in body.' },
};

export const SILENCE_WORDS: FieldWords = {
  '/key': KEY_WORD,
  '/policy_ids': { label: 'Policies (none chosen: every policy)', help: 'Their alerts are still raised and recorded; only the notifications wait.' },
  '/matchers': {
    label: 'Matchers',
    help: 'One per line, as Alertmanager writes them: alertname="NodeDown", instance=~"db-.*", team!="web". An alert is covered when it matches all of them.',
  },
  '/starts_at': { help: 'Empty: now.' },
  '/ends_at': { help: 'When the silence ends; later than it starts.' },
  '/comment': { help: 'Why, for whoever reads the list.' },
  '/recurrence': {
    label: 'Weekly window',
    toggle: 'Only in a weekly window',
    help: 'Silences only on the chosen weekdays, from the start to the end time, between the two dates above. An end before the start runs past midnight.',
  },
  '/recurrence/timezone': { label: 'Time zone', help: 'The days and times below are local to it, e.g. Europe/Berlin.' },
  '/recurrence/days': { label: 'Days' },
  '/recurrence/start': { label: 'From (HH:MM)', help: '' },
  '/recurrence/end': { label: 'To (HH:MM)', help: 'Up to 24:00.' },
};

export const ALERT_SOURCE_WORDS: FieldWords = {
  '/key': KEY_WORD,
  '/name': { help: 'Which sender this is, e.g. "Prometheus, production".' },
  '/severity_label': { label: 'Severity label', help: 'The alert label that gives an alert its severity (critical, error, warning, info).' },
  '/default_severity': { label: 'Severity otherwise', help: 'For alerts without that label, or with a value it does not know.' },
  '/escalation_policy_id': { label: 'Escalation policy', help: 'While an alert stays triggered, its steps page their destinations. None: no escalation.' },
  '/renotify_minutes': { label: 'Remind every (minutes)', help: 'While an alert stays triggered, notify it again this often. Empty: no reminders.' },
  '/resolve_timeout_minutes': {
    label: 'Resolve after (minutes without a post)',
    help: 'An alert the sender stops posting resolves this long after its last post, or when the end it gave passes.',
  },
  '/inhibit_rules': {
    label: 'Inhibition rules',
    help: 'Quiets the lesser alerts of an outage: while the first alert of a rule is open, the alerts it names are kept but not notified. Matchers read as in Alertmanager: name="value", name!="value", name=~"regex", name!~"regex". None: every alert is notified.',
  },
};

export const ESCALATION_WORDS: FieldWords = {
  '/key': KEY_WORD,
  '/steps': {
    help: 'If nobody has acknowledged the alert by then, each step pages whoever is on call in its schedules then, its people and its destinations.',
  },
  '/repeat': { label: 'Repeat the chain', help: 'After the last step, start again from step 1 this many more times.' },
};
