// The bench:evaluate data set: workspaces, event definitions and policies written to Postgres
// in bulk, and logs for every event generated inside ClickHouse (the rollup views fill the
// minute, hour and day tables from them, as at ingest). The rule options are spread over the
// policies: a quarter with a pending run (and reminders), a quarter with a recovery threshold,
// a quarter comparing with the bucket before, a day or a week earlier, a quarter plain; the
// logs are written for the same span 1 and 7 days earlier too, so comparisons have data.
import { randomBytes } from 'node:crypto';
import { newId } from '../../../src/ids.js';
import { AGGREGATES, COMPARE_TO, CONDITIONS, type Aggregate, type CompareTo, type Condition } from '../../../src/policies/model.js';
import type { Stores } from '../../../src/stores/index.js';

export interface FixtureSize {
  readonly workspaces: number;
  readonly events: number;
  readonly policies: number;
  /** Minutes of logs before `now`, LOGS_PER_MINUTE per event and minute. */
  readonly minutes: number;
}

const LOGS_PER_MINUTE = 5;
const TIMEZONES = ['UTC', 'Europe/Berlin', 'Asia/Kolkata', 'America/New_York'];
/** Period of policy i: mostly minutes, as monitoring rules usually are. */
const periodOf = (i: number) => (i % 10 < 6 ? 'minute' : i % 10 < 9 ? 'hour' : 'day');

interface BenchEvent {
  readonly eventId: string;
  readonly workspaceId: string;
  readonly name: string;
  readonly timezone: string;
}

export async function writeFixture(stores: Stores, size: FixtureSize, now: number): Promise<BenchEvent[]> {
  const workspaceIds = Array.from({ length: size.workspaces }, (_, i) => `bench-${i}`);
  await stores.postgres.query('INSERT INTO workspaces (user_id) SELECT unnest($1::text[])', [workspaceIds]);
  const events: BenchEvent[] = Array.from({ length: size.events }, (_, i) => ({
    eventId: newId(),
    workspaceId: workspaceIds[i % size.workspaces]!,
    name: `service.metric_${i}`,
    timezone: TIMEZONES[i % TIMEZONES.length]!,
  }));
  await stores.postgres.query(
    `INSERT INTO event_definitions (event_id, user_id, agent, event, timezone, share_token)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])`,
    [
      events.map((e) => e.eventId),
      events.map((e) => e.workspaceId),
      events.map(() => 'bench'),
      events.map((e) => e.name),
      events.map((e) => e.timezone),
      events.map(() => randomBytes(24).toString('base64url')),
    ],
  );

  const policies = Array.from({ length: size.policies }, (_, i) => {
    const event = events[i % events.length]!;
    const aggregate: Aggregate = AGGREGATES[i % AGGREGATES.length]!;
    const period = periodOf(Math.floor(i / events.length));
    // Thresholds spread over the data's range, so some policies breach and some do not.
    const scale =
      aggregate === 'count'
        ? LOGS_PER_MINUTE * (period === 'minute' ? 1 : 60)
        : aggregate === 'sum'
          ? 50 * LOGS_PER_MINUTE * (period === 'minute' ? 1 : 60)
          : 100;
    const threshold = Math.round((((i * 37) % 100) / 100) * scale * 2);
    let condition: Condition = CONDITIONS[(i * 7) % CONDITIONS.length]!;
    const options = { pending: 1, recovery: null as number | null, compareTo: null as CompareTo | null, minCount: 0, renotify: null as number | null };
    switch (i % 4) {
      case 0:
        options.pending = 3;
        options.renotify = 60;
        break;
      case 1:
        if (condition === 'eq') condition = 'gte';
        options.recovery = condition === 'gt' || condition === 'gte' ? threshold * 0.8 : threshold * 1.2;
        break;
      case 2: {
        const compareTo = COMPARE_TO[Math.floor(i / 4) % COMPARE_TO.length]!;
        options.compareTo = period === 'day' && compareTo === 'previous_1d' ? 'previous_bucket' : compareTo;
        options.minCount = LOGS_PER_MINUTE;
        break;
      }
    }
    return { id: newId(), event, period, aggregate, condition, threshold, ...options };
  });
  await stores.postgres.query(
    `INSERT INTO policies (policy_id, workspace_id, event_id, title, period, aggregate, condition, threshold, severity,
       pending_buckets, recovery_threshold, compare_to, min_count, renotify_minutes)
     SELECT id, ws, ev, 'bench policy', period, aggregate, condition, threshold, 'warning', pending, recovery, compare_to, min_count, renotify
     FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::int[], $9::float8[], $10::text[], $11::int[], $12::int[])
       AS u(id, ws, ev, period, aggregate, condition, threshold, pending, recovery, compare_to, min_count, renotify)`,
    [
      policies.map((p) => p.id),
      policies.map((p) => p.event.workspaceId),
      policies.map((p) => p.event.eventId),
      policies.map((p) => p.period),
      policies.map((p) => p.aggregate),
      policies.map((p) => p.condition),
      policies.map((p) => p.threshold),
      policies.map((p) => p.pending),
      policies.map((p) => p.recovery),
      policies.map((p) => p.compareTo),
      policies.map((p) => p.minCount),
      policies.map((p) => p.renotify),
    ],
  );

  // One INSERT … SELECT per timezone and span: ClickHouse takes a constant zone for the day
  // bucket. The spans end now, a day earlier and a week earlier (what comparisons read).
  for (const [timezone, end] of TIMEZONES.flatMap((tz) => [0, 1, 7].map((days) => [tz, now - days * 86_400_000] as const))) {
    const group = events.filter((e) => e.timezone === timezone);
    await stores.clickhouse.client.command({
      query: `
        INSERT INTO logs (workspace_id, event_id, agent, event, log_id, value, occurred_at, received_at, day_start, meta)
        SELECT {workspaces:Array(String)}[i + 1], {events:Array(UUID)}[i + 1], 'bench', {names:Array(String)}[i + 1],
               generateUUIDv4(), (cityHash64(number) % 10000) / 100, occurred, occurred,
               toDateTime(toStartOfDay(occurred, {tz:String}), 'UTC'), ''
        FROM (
          SELECT number, number % length({events:Array(UUID)}) AS i,
                 fromUnixTimestamp64Milli({now:Int64} - toInt64(intDiv(number, length({events:Array(UUID)})) * {step:UInt32}) - 1000, 'UTC') AS occurred
          FROM numbers({rows:UInt64})
        )`,
      query_params: {
        workspaces: group.map((e) => e.workspaceId),
        events: group.map((e) => e.eventId),
        names: group.map((e) => e.name),
        tz: timezone,
        now: end,
        step: 60_000 / LOGS_PER_MINUTE,
        rows: group.length * size.minutes * LOGS_PER_MINUTE,
      },
    });
  }
  return events;
}
