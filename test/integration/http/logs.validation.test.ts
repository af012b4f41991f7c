// POST /v1.0/logs with bad input (docs/api.md: Bodies and errors, Logs): the answer names
// every bad record by index and field, and nothing of a refused batch is stored, neither the
// rows in ClickHouse nor the event definitions in Postgres.
import { expect } from 'chai';
import type { TestResponse } from '../../helpers/http.js';
import { queryRows, storedLogCount } from '../../helpers/logs.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { uniqueName } from '../../helpers/stores.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Where the bad record sits in a mixed batch: good records before and after it. */
const BAD_INDEX = 2;

interface ErrorDetail {
  path: string;
  message: string;
}

interface Workspace {
  readonly ws: string;
  readonly token: string;
}

let svc: TestService;

const isoAgo = (ms: number) => new Date(Date.now() - ms).toISOString();
const isoAhead = (ms: number) => new Date(Date.now() + ms).toISOString();

/** A valid record; each n gives another agent/event pair, so a leak would create definitions. */
function goodRecord(n: number): Record<string, unknown> {
  return { agent: `host-${n}`, event: `cpu.load_pct_${n}`, value: n + 0.5, occurred_at: isoAgo(60_000), meta: { n } };
}

/** Four good records with the bad one at BAD_INDEX. */
function mixedBatch(bad: unknown): unknown[] {
  const batch: unknown[] = [goodRecord(0), goodRecord(1), goodRecord(3), goodRecord(4)];
  batch.splice(BAD_INDEX, 0, bad);
  return batch;
}

/** A meta object whose compact JSON is exactly `bytes` UTF-8 bytes, made of 'a's. */
function metaOfBytes(bytes: number): Record<string, string> {
  const meta = { note: 'a'.repeat(bytes - Buffer.byteLength(JSON.stringify({ note: '' }))) };
  expect(Buffer.byteLength(JSON.stringify(meta))).to.equal(bytes);
  return meta;
}

function metaWithKeys(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));
}

async function freshWorkspace(): Promise<Workspace> {
  const ws = uniqueName('logs-validation');
  return { ws, token: await svc.tokenFor(ws) };
}

function sendLogs(token: string | null, body: unknown): Promise<TestResponse> {
  return svc.request('POST', '/v1.0/logs', { token, body });
}

function sendRawLogs(token: string, rawBody: string, contentType = 'application/json'): Promise<TestResponse> {
  return svc.request('POST', '/v1.0/logs', { token, rawBody, headers: { 'content-type': contentType } });
}

const storedRowCount = (ws: string) => storedLogCount(svc.stores.clickhouse, ws);

async function storedRows(ws: string): Promise<{ agent: string; event: string; log_id: string }[]> {
  return queryRows(svc.stores.clickhouse, 'SELECT agent, event, toString(log_id) AS log_id FROM logs WHERE workspace_id = {ws:String}', { ws });
}

async function definitionCount(ws: string): Promise<number> {
  const [row] = await svc.stores.postgres.query<{ n: number }>('SELECT count(*)::int AS n FROM event_definitions WHERE user_id = $1', [ws]);
  return row!.n;
}

async function expectNothingStored(ws: string): Promise<void> {
  expect(await storedRowCount(ws), 'rows in ClickHouse').to.equal(0);
  expect(await definitionCount(ws), 'event definitions in Postgres').to.equal(0);
}

/** For requests without a workspace: nothing anywhere carries this event name. */
async function expectEventNameNowhere(event: string): Promise<void> {
  const [row] = await queryRows<{ n: number | string }>(svc.stores.clickhouse, 'SELECT count() AS n FROM logs WHERE event = {event:String}', { event });
  expect(Number(row!.n), 'rows in ClickHouse').to.equal(0);
  const [defs] = await svc.stores.postgres.query<{ n: number }>('SELECT count(*)::int AS n FROM event_definitions WHERE event = $1', [event]);
  expect(defs!.n, 'event definitions in Postgres').to.equal(0);
}

function expectErrorBody(res: TestResponse, status: number, code: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.message).to.be.a('string').and.not.equal('');
  expect(res.body.error.details).to.be.an('array');
}

/** 400 validation_failed with a readable detail at `path`; returns that path's details. */
function expectRefused(res: TestResponse, path: string, message?: RegExp): ErrorDetail[] {
  expectErrorBody(res, 400, 'validation_failed');
  const details = res.body.error.details as ErrorDetail[];
  const atPath = details.filter((d) => d.path === path);
  expect(atPath, `a detail at ${path} in ${res.text}`).to.not.be.empty;
  for (const detail of atPath) {
    expect(detail.message).to.be.a('string').and.not.equal('');
    if (message) expect(detail.message).to.match(message);
  }
  return atPath;
}

/** 400 validation_failed for a whole-batch problem (no record to blame). */
function expectBatchRefused(res: TestResponse): void {
  expectErrorBody(res, 400, 'validation_failed');
  expect(res.body.error.details).to.not.be.empty;
}

/** Sends the bad record among good ones: 400 naming it at `field`, and nothing stored. */
async function expectRecordRefused(bad: unknown, field: string, message?: RegExp): Promise<ErrorDetail[]> {
  const { ws, token } = await freshWorkspace();
  const res = await sendLogs(token, mixedBatch(bad));
  const details = expectRefused(res, `/${BAD_INDEX}/${field}`, message);
  for (const detail of res.body.error.details as ErrorDetail[]) expect(detail.path).to.match(new RegExp(`^/${BAD_INDEX}/`));
  await expectNothingStored(ws);
  return details;
}

/** Sends the record among good ones: 200 with an empty body and every record stored. */
async function expectRecordAccepted(record: unknown): Promise<Workspace> {
  const workspace = await freshWorkspace();
  const batch = mixedBatch(record);
  const res = await sendLogs(workspace.token, batch);
  expect(res.status, res.text).to.equal(200);
  expect(res.text).to.equal('');
  expect(await storedRowCount(workspace.ws)).to.equal(batch.length);
  return workspace;
}

async function rejectedInvalidCounter(): Promise<number> {
  const res = await svc.request('GET', '/metrics');
  expect(res.status).to.equal(200);
  const line = res.text.split('\n').find((l) => l.startsWith('alertmon_rejected_records_total{reason="invalid"} '));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

describe('POST /v1.0/logs refuses bad input and stores nothing of the batch', () => {
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc.close());

  describe('the batch as a whole', () => {
    it('refuses a JSON object instead of an array', async () => {
      const { ws, token } = await freshWorkspace();
      expectBatchRefused(await sendLogs(token, goodRecord(0)));
      await expectNothingStored(ws);
    });

    it('refuses a JSON string instead of an array', async () => {
      const { ws, token } = await freshWorkspace();
      expectBatchRefused(await sendRawLogs(token, JSON.stringify(JSON.stringify([goodRecord(0)]))));
      await expectNothingStored(ws);
    });

    it('refuses a request without a body', async () => {
      const { ws, token } = await freshWorkspace();
      expectBatchRefused(await sendLogs(token, undefined));
      await expectNothingStored(ws);
    });

    it('refuses 1,001 valid records (the default limit is 1,000)', async () => {
      const { ws, token } = await freshWorkspace();
      const batch = Array.from({ length: 1_001 }, (_, i) => goodRecord(i));
      expectBatchRefused(await sendLogs(token, batch));
      await expectNothingStored(ws);
    });

    it('accepts exactly 1,000 records and stores all of them (the SDKs send 500 by default)', async () => {
      const { ws, token } = await freshWorkspace();
      const batch = Array.from({ length: 1_000 }, (_, i) => ({ ...goodRecord(0), value: i }));
      const res = await sendLogs(token, batch);
      expect(res.status, res.text).to.equal(200);
      expect(await storedRowCount(ws)).to.equal(1_000);
      expect(await definitionCount(ws)).to.equal(1);
    });

    it('accepts an empty array and stores nothing', async () => {
      const { ws, token } = await freshWorkspace();
      const res = await sendLogs(token, []);
      expect(res.status, res.text).to.equal(200);
      expect(res.text).to.equal('');
      await expectNothingStored(ws);
    });
  });

  describe('value', () => {
    it('refuses a number sent as a string ("5")', async () => {
      await expectRecordRefused({ event: 'disk.free_mb', value: '5' }, 'value');
    });

    it('refuses 1e400 (Infinity after parsing) as not finite, with one detail', async () => {
      const { ws, token } = await freshWorkspace();
      const placeholder = '"__not_finite__"';
      const body = JSON.stringify(mixedBatch({ event: 'disk.free_mb', value: '__not_finite__' })).replace(placeholder, '1e400');
      expect(body).to.include('"value":1e400');
      const res = await sendRawLogs(token, body);
      const details = expectRefused(res, `/${BAD_INDEX}/value`, /finite/i);
      expect(details).to.have.length(1);
      await expectNothingStored(ws);
    });

    it('refuses a value whose square is not finite (1e308, 1e200), so that no rollup shows "squares": null', async () => {
      await expectRecordRefused({ event: 'disk.free_mb', value: 1e308 }, 'value', /between -1e\+150 and 1e\+150/);
      await expectRecordRefused({ event: 'disk.free_mb', value: 1e200 }, 'value', /between -1e\+150 and 1e\+150/);
      await expectRecordRefused({ event: 'disk.free_mb', value: -1.5e154 }, 'value');
    });

    it('accepts ±1e150, and the rollups show its squares as a number', async () => {
      const { token } = await freshWorkspace();
      const res = await sendLogs(token, [
        { event: 'huge', value: 1e150 },
        { event: 'huge', value: -1e150 },
      ]);
      expect(res.status, res.text).to.equal(200);
      const events = await svc.request<{ event_id: string }[]>('GET', '/v1.0/events', { token });
      for (const period of ['minute', 'hour', 'day']) {
        const buckets = await svc.request<{ squares: unknown; count: number }[]>('GET', `/v1.0/events/${events.body[0]!.event_id}/logs?period=${period}`, {
          token,
        });
        expect(buckets.body.map((b) => b.count)).to.deep.equal([2]);
        expect(buckets.body[0]!.squares).to.be.a('number').and.closeTo(2e300, 1e286);
      }
    });

    it('refuses a record without value', async () => {
      await expectRecordRefused({ event: 'disk.free_mb' }, 'value', /is required/);
    });
  });

  describe('event', () => {
    it('refuses a record without event', async () => {
      await expectRecordRefused({ value: 1 }, 'event', /is required/);
    });

    it('refuses an empty event', async () => {
      await expectRecordRefused({ event: '', value: 1 }, 'event');
    });

    it('refuses an event that is blank after trimming', async () => {
      await expectRecordRefused({ event: '   ', value: 1 }, 'event');
    });

    it('refuses an event of 201 characters', async () => {
      await expectRecordRefused({ event: 'e'.repeat(201), value: 1 }, 'event');
    });

    it('accepts an event of 200 characters padded with spaces, and stores it trimmed', async () => {
      const name = `${'e'.repeat(199)}x`;
      const { ws } = await expectRecordAccepted({ event: `   ${name}  `, value: 1 });
      const stored = (await storedRows(ws)).filter((r) => r.agent === 'default');
      expect(stored.map((r) => r.event)).to.deep.equal([name]);
    });
  });

  describe('agent', () => {
    it('refuses an agent of 201 characters', async () => {
      await expectRecordRefused({ agent: 'a'.repeat(201), event: 'disk.free_mb', value: 1 }, 'agent');
    });

    for (const [label, agent] of [
      ['an omitted', undefined],
      ['an empty', ''],
      ['a blank', '   '],
    ] as const) {
      it(`stores ${label} agent as "default"`, async () => {
        const record = agent === undefined ? { event: 'disk.free_mb', value: 1 } : { agent, event: 'disk.free_mb', value: 1 };
        const { ws } = await expectRecordAccepted(record);
        const stored = (await storedRows(ws)).find((r) => r.event === 'disk.free_mb');
        expect(stored?.agent).to.equal('default');
        const defs = await svc.stores.postgres.query<{ agent: string }>('SELECT agent FROM event_definitions WHERE user_id = $1 AND event = $2', [
          ws,
          'disk.free_mb',
        ]);
        expect(defs.map((d) => d.agent)).to.deep.equal(['default']);
      });
    }
  });

  describe('unknown fields', () => {
    it('refuses a misspelt field ("valeu") and names it', async () => {
      await expectRecordRefused({ event: 'disk.free_mb', value: 1, valeu: 3 }, 'valeu');
    });

    it('refuses a misspelt field that stands in for a required one, naming both', async () => {
      const { ws, token } = await freshWorkspace();
      const res = await sendLogs(token, mixedBatch({ event: 'disk.free_mb', valeu: 3 }));
      expectRefused(res, `/${BAD_INDEX}/valeu`);
      expectRefused(res, `/${BAD_INDEX}/value`, /is required/);
      await expectNothingStored(ws);
    });
  });

  describe('meta', () => {
    it('refuses meta whose compact JSON is 1025 bytes', async () => {
      await expectRecordRefused({ event: 'disk.free_mb', value: 1, meta: metaOfBytes(1025) }, 'meta');
    });

    it('accepts meta whose compact JSON is exactly 1024 bytes', async () => {
      await expectRecordAccepted({ event: 'disk.free_mb', value: 1, meta: metaOfBytes(1024) });
    });

    it('counts UTF-8 bytes, not characters: 518 characters of 1025 bytes are refused', async () => {
      const meta = { note: 'é'.repeat(507) };
      expect(JSON.stringify(meta).length).to.equal(518);
      expect(Buffer.byteLength(JSON.stringify(meta))).to.equal(1025);
      await expectRecordRefused({ event: 'disk.free_mb', value: 1, meta }, 'meta');
    });

    it('refuses meta holding 1e400 (Infinity after parsing) deep inside, never storing it as null', async () => {
      const { ws, token } = await freshWorkspace();
      const body = JSON.stringify(mixedBatch({ event: 'disk.free_mb', value: 1, meta: { a: [1, { b: '__not_finite__' }] } })).replace(
        '"__not_finite__"',
        '-1e400',
      );
      const details = expectRefused(await sendRawLogs(token, body), `/${BAD_INDEX}/meta`, /finite/);
      expect(details).to.have.length(1);
      await expectNothingStored(ws);
    });

    it('refuses meta that is 1e400 itself, or holds it as a top-level value, like value', async () => {
      const { ws, token } = await freshWorkspace();
      for (const meta of ['1e400', '{"x":1e400}']) {
        const body = JSON.stringify(mixedBatch({ event: 'disk.free_mb', value: 1, meta: '__not_finite__' })).replace('"__not_finite__"', meta);
        expect(body).to.include(`"meta":${meta}`);
        const details = expectRefused(await sendRawLogs(token, body), `/${BAD_INDEX}/meta`, /finite/);
        expect(details, meta).to.have.length(1);
      }
      await expectNothingStored(ws);
    });

    it('accepts meta holding null and stores it as sent', async () => {
      await expectRecordAccepted({ event: 'disk.free_mb', value: 1, meta: { a: null, b: [null] } });
    });

    it('refuses a meta object with 11 top-level keys', async () => {
      await expectRecordRefused({ event: 'disk.free_mb', value: 1, meta: metaWithKeys(11) }, 'meta');
    });

    it('accepts a meta object with 10 top-level keys', async () => {
      await expectRecordAccepted({ event: 'disk.free_mb', value: 1, meta: metaWithKeys(10) });
    });

    it('accepts a small meta array of 20 items (the key limit is for objects)', async () => {
      await expectRecordAccepted({ event: 'disk.free_mb', value: 1, meta: Array.from({ length: 20 }, (_, i) => i) });
    });

    for (const meta of [null, 42, 'a plain string']) {
      it(`accepts meta ${JSON.stringify(meta)}`, async () => {
        await expectRecordAccepted({ event: 'disk.free_mb', value: 1, meta });
      });
    }
  });

  describe('text no store can keep (NUL, lone surrogates), at any depth', () => {
    const LONE = 'cpu\ud800load';
    const NUL = 'cpu\u0000load';

    for (const [label, text] of [
      ['a lone surrogate', LONE],
      ['a NUL character', NUL],
    ] as const) {
      it(`refuses ${label} in event`, async () => {
        await expectRecordRefused({ event: text, value: 1 }, 'event', /NUL|well-formed/);
      });

      it(`refuses ${label} in agent`, async () => {
        await expectRecordRefused({ agent: text, event: 'disk.free_mb', value: 1 }, 'agent', /NUL|well-formed/);
      });

      it(`refuses ${label} in a meta value deep inside, naming its path`, async () => {
        await expectRecordRefused({ event: 'disk.free_mb', value: 1, meta: { a: { b: ['fine', text] } } }, 'meta/a/b/1', /NUL|well-formed/);
      });

      it(`refuses ${label} in a meta key, at the object holding it`, async () => {
        await expectRecordRefused({ event: 'disk.free_mb', value: 1, meta: { a: { [text]: 1 } } }, 'meta/a', /key/);
      });

      it(`refuses ${label} as a whole meta string`, async () => {
        await expectRecordRefused({ event: 'disk.free_mb', value: 1, meta: text }, 'meta', /NUL|well-formed/);
      });
    }

    it('accepts well-formed surrogate pairs (emoji) and stores them as sent', async () => {
      const { ws } = await expectRecordAccepted({ agent: 'host-😀', event: 'mood.😀_count', value: 1, meta: { '😀': '𝄞' } });
      const stored = (await storedRows(ws)).filter((r) => r.agent === 'host-😀');
      expect(stored.map((r) => r.event)).to.deep.equal(['mood.😀_count']);
    });

    it('refuses meta nested 4,500 levels deep with 400, not a crash', async () => {
      const { ws, token } = await freshWorkspace();
      const placeholder = '"__deep__"';
      const deep = '['.repeat(4500) + ']'.repeat(4500);
      const body = JSON.stringify(mixedBatch({ event: 'disk.free_mb', value: 1, meta: '__deep__' })).replace(placeholder, deep);
      const res = await sendRawLogs(token, body);
      expectRefused(res, `/${BAD_INDEX}/meta`, /1024 bytes/);
      await expectNothingStored(ws);
      const after = await sendLogs(token, [goodRecord(0)]);
      expect(after.status, after.text).to.equal(200);
    });
  });

  describe('occurred_at', () => {
    it('refuses a time 31 days ago', async () => {
      await expectRecordRefused({ event: 'disk.free_mb', value: 1, occurred_at: isoAgo(31 * DAY_MS) }, 'occurred_at');
    });

    it('refuses a time 2 days ahead', async () => {
      await expectRecordRefused({ event: 'disk.free_mb', value: 1, occurred_at: isoAhead(2 * DAY_MS) }, 'occurred_at');
    });

    it('accepts times 29 days ago and 23 hours ahead', async () => {
      const { ws, token } = await freshWorkspace();
      const batch = [
        { event: 'disk.free_mb', value: 1, occurred_at: isoAgo(29 * DAY_MS) },
        { event: 'disk.free_mb', value: 2, occurred_at: isoAhead(23 * HOUR_MS) },
      ];
      const res = await sendLogs(token, batch);
      expect(res.status, res.text).to.equal(200);
      expect(await storedRowCount(ws)).to.equal(2);
    });

    it('refuses a value that is not a date ("yesterday")', async () => {
      await expectRecordRefused({ event: 'disk.free_mb', value: 1, occurred_at: 'yesterday' }, 'occurred_at');
    });

    it('refuses a timestamp without a timezone', async () => {
      const withoutZone = isoAgo(HOUR_MS).slice(0, 19);
      expect(withoutZone).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      await expectRecordRefused({ event: 'disk.free_mb', value: 1, occurred_at: withoutZone }, 'occurred_at');
    });
  });

  describe('log_id', () => {
    it('refuses a log_id that is not a UUID', async () => {
      await expectRecordRefused({ log_id: 'not-a-uuid', event: 'disk.free_mb', value: 1 }, 'log_id');
    });

    for (const [label, logId] of [
      ['an empty', ''],
      ['a blank', '   '],
    ] as const) {
      it(`generates a UUIDv7 for ${label} log_id`, async () => {
        const { ws } = await expectRecordAccepted({ log_id: logId, event: 'disk.free_mb', value: 1 });
        const stored = (await storedRows(ws)).find((r) => r.event === 'disk.free_mb');
        expect(stored?.log_id).to.match(UUID);
        expect(stored?.log_id).to.match(UUID_V7);
      });
    }
  });

  describe('several bad records', () => {
    it('lists every bad record by index, in index order', async () => {
      const { ws, token } = await freshWorkspace();
      const batch: unknown[] = Array.from({ length: 10 }, (_, i) => goodRecord(i));
      batch[7] = { event: 'disk.free_mb', value: '7' };
      batch[0] = { value: 1 };
      batch[3] = { event: 'disk.free_mb', value: 1, occurred_at: 'yesterday' };
      const res = await sendLogs(token, batch);
      expectRefused(res, '/0/event');
      expectRefused(res, '/3/occurred_at');
      expectRefused(res, '/7/value');
      const indexes = (res.body.error.details as ErrorDetail[]).map((d) => Number(/^\/(\d+)\//.exec(d.path)?.[1]));
      expect([...new Set(indexes)]).to.deep.equal([0, 3, 7]);
      expect(indexes).to.deep.equal([...indexes].sort((a, b) => a - b));
      await expectNothingStored(ws);
    });
  });

  describe('body that cannot be read', () => {
    it('refuses malformed JSON with 400 invalid_json', async () => {
      const { ws, token } = await freshWorkspace();
      const res = await sendRawLogs(token, JSON.stringify([goodRecord(0), goodRecord(1)]).slice(0, -2));
      expectErrorBody(res, 400, 'invalid_json');
      await expectNothingStored(ws);
    });

    it('refuses a JSON-looking body sent as text/plain with 415', async () => {
      const { ws, token } = await freshWorkspace();
      const res = await sendRawLogs(token, JSON.stringify([goodRecord(0), goodRecord(1)]), 'text/plain');
      expectErrorBody(res, 415, 'unsupported_media_type');
      await expectNothingStored(ws);
    });

    it('refuses a body over the limit (2 KB a record of the batch limit: 2,048,000 bytes) with 413, even when its records are valid', async () => {
      const { ws, token } = await freshWorkspace();
      const body = JSON.stringify([goodRecord(0), goodRecord(1)]) + ' '.repeat(2_050_000);
      const res = await sendRawLogs(token, body);
      expectErrorBody(res, 413, 'payload_too_large');
      await expectNothingStored(ws);
    });
  });

  describe('authentication', () => {
    it('refuses a batch without a token with 401', async () => {
      const event = uniqueName('no_token');
      const res = await sendLogs(null, [{ event, value: 1 }]);
      expectErrorBody(res, 401, 'unauthorized');
      await expectEventNameNowhere(event);
    });

    it('refuses a batch with an unknown token with 401', async () => {
      const event = uniqueName('unknown_token');
      const res = await sendLogs(`alm_${'x'.repeat(43)}`, [{ event, value: 1 }]);
      expectErrorBody(res, 401, 'unauthorized');
      await expectEventNameNowhere(event);
    });
  });

  describe('metrics', () => {
    it('counts the records of a refused batch in alertmon_rejected_records_total{reason="invalid"}', async () => {
      const before = await rejectedInvalidCounter();
      const { ws, token } = await freshWorkspace();
      const batch = mixedBatch({ event: 'disk.free_mb', value: '5' });
      expectRefused(await sendLogs(token, batch), `/${BAD_INDEX}/value`);
      expect(await rejectedInvalidCounter()).to.equal(before + batch.length);
      await expectNothingStored(ws);
    });
  });
});
