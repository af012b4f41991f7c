// npm run bench:escalation -- [--alerts 50]
// How late escalation steps go out against their schedule. A service (ROLE=all, embedded
// stores, in this process) with ESCALATION_MINUTE_MS=1000 (one step "minute" is 1 s) and the
// default ESCALATION_POLL_INTERVAL_MS; N policies each raise an alert at once, each escalating
// through 3 steps of 1 minute to a local webhook sink. For every step: written − due (the
// escalation worker's lateness) and received at the sink − due (with dispatch and delivery),
// p50 / p99 / max. A step is due after_minutes after the alert triggered (step 1) or after the
// step before was written.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';
import { temporaryDir } from './lib/cleanup.js';
import { apiCaller } from './lib/apiCall.js';
import { runBench, UsageError } from './lib/runner.js';

const MINUTE_MS = 1000;
const STEPS = 3;
const progress = (message: string) => process.stderr.write(`${message}\n`);

function parseAlerts(argv: readonly string[]): number {
  const at = argv.indexOf('--alerts');
  const count = at === -1 ? 50 : Number(argv[at + 1]);
  if (!Number.isSafeInteger(count) || count < 1 || count > 1000) throw new UsageError('--alerts takes an integer from 1 to 1000');
  return count;
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
const describe = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${quantile(sorted, 0.5)} ms, p99 ${quantile(sorted, 0.99)} ms, max ${sorted.at(-1)} ms (${sorted.length} steps)`;
};

async function main(): Promise<void> {
  const alerts = parseAlerts(process.argv.slice(2));
  const received = new Map<string, number>();
  const sink = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const at = Date.now();
      const json = JSON.parse(body) as { type: string; alert: { alert_id: string }; escalation?: { step: number } };
      if (json.type === 'alert.escalated' && json.escalation) received.set(`${json.alert.alert_id}/${json.escalation.step}`, at);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`;
  const adminToken = 'bench-escalation-admin-token';
  const config = loadConfig({
    ...process.env,
    DATA_DIR: temporaryDir('alertmon-bench-escalation-'),
    PORT: '0',
    LOG_LEVEL: 'warn',
    ADMIN_TOKEN: adminToken,
    ALLOW_PRIVATE_TARGETS: '1',
    EVAL_INTERVAL_MS: '86400000',
    ESCALATION_MINUTE_MS: String(MINUTE_MS),
  });
  progress(
    `escalation poll interval ${config.delivery.escalationPollIntervalMs} ms, delivery poll ${config.delivery.pollIntervalMs} ms, ${alerts} alerts × ${STEPS} steps`,
  );
  const service = await startService(config, createLogger('warn'));
  try {
    const call = apiCaller<Record<string, unknown> & { alert?: { alert_id: string } }>(service.url);
    const token = (await call('POST', '/v1.0/admin/tokens', adminToken, { user_id: 'bench' })).token as string;
    // Scope all: the sink gets each alert.triggered too, which the count ignores.
    const destination = (await call('POST', '/v1.0/destinations', token, { channel: 'webhook', url: sinkUrl })) as { destination_id: string };
    const chain = await call('POST', '/v1.0/escalation-policies', token, {
      name: 'bench',
      steps: Array.from({ length: STEPS }, () => ({ after_minutes: 1, destination_ids: [destination.destination_id] })),
    });
    const alertIds: string[] = [];
    for (let i = 0; i < alerts; i++) {
      const event = await call('POST', '/v1.0/events', token, { agent: 'bench', event: `silent.e${i}` });
      const policy = await call('POST', '/v1.0/policies', token, {
        event_id: event.event_id,
        title: `silent ${i}`,
        severity: 'critical',
        period: 'minute',
        aggregate: 'count',
        condition: 'lt',
        threshold: 1,
        escalation_policy_id: chain.escalation_policy_id,
      });
      alertIds.push((await call('POST', `/v1.0/policies/${policy.policy_id}/evaluate`, token, {})).alert!.alert_id);
    }
    const deadline = Date.now() + 120_000 + alerts * STEPS * 200;
    while (received.size < alerts * STEPS) {
      if (Date.now() > deadline) throw new Error(`only ${received.size} of ${alerts * STEPS} steps arrived`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const rows = await service.stores.postgres.query<{ alert_id: string; step: number; written: Date; triggered_at: Date }>(
      `SELECT n.alert_id, (n.alert -> 'escalation' ->> 'step')::int AS step, n.created_at AS written, a.triggered_at
       FROM alert_notifications n JOIN alerts a ON a.alert_id = n.alert_id
       WHERE n.type = 'alert.escalated' AND n.alert_id = ANY ($1::uuid[]) ORDER BY n.alert_id, step`,
      [alertIds],
    );
    const writtenAt = new Map(rows.map((r) => [`${r.alert_id}/${r.step}`, r.written.getTime()]));
    const lateWritten: number[] = [];
    const lateReceived: number[] = [];
    for (const r of rows) {
      const due = (r.step === 1 ? r.triggered_at.getTime() : writtenAt.get(`${r.alert_id}/${r.step - 1}`)!) + MINUTE_MS;
      lateWritten.push(r.written.getTime() - due);
      lateReceived.push(received.get(`${r.alert_id}/${r.step}`)! - due);
    }
    process.stdout.write(`step written − due:           ${describe(lateWritten)}\n`);
    process.stdout.write(`step received at sink − due:  ${describe(lateReceived)}\n`);
  } finally {
    await service.close();
    sink.close();
  }
}

await runBench('escalation', main);
