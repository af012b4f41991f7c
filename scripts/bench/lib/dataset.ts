// The records of a run, generated from a seed before any timing and kept as ready-to-send
// request bodies, so that the clients spend next to no CPU while the service is measured.
import { seededRandom } from '../../lib/seededRandom.js';

export interface RequestBatch {
  /** The JSON array of records, as sent to POST /v1.0/logs. */
  readonly body: Buffer;
  readonly records: number;
}

/** One record as the API takes it. */
export interface LogRecordBody {
  readonly log_id: string;
  readonly agent: string;
  readonly event: string;
  readonly value: number;
  readonly occurred_at: string;
  readonly meta: { readonly host: string };
}

const AGENTS = Array.from({ length: 10 }, (_, i) => `agent-${String(i + 1).padStart(2, '0')}`);

const EVENTS = [
  'cpu.load_pct',
  'cpu.steal_pct',
  'mem.used_pct',
  'mem.swap_pct',
  'disk.used_pct',
  'disk.read_mbps',
  'disk.write_mbps',
  'disk.iops',
  'net.rx_mbps',
  'net.tx_mbps',
  'net.errors',
  'http.requests',
  'http.latency_ms',
  'http.errors_5xx',
  'db.connections',
  'db.query_ms',
  'queue.depth',
  'queue.lag_s',
  'jvm.gc_ms',
  'temp.celsius',
];

const HOSTS = 50;
const HOUR_MS = 3_600_000;

function hex(value: number, width: number): string {
  return Math.floor(value).toString(16).padStart(width, '0');
}

/** A version-4 UUID whose last 48 bits are the record's index, so no two records of a run share an id. */
function logIdFor(index: number, random: () => number): string {
  const timeLow = hex(random() * 0x1_0000_0000, 8);
  const timeMid = hex(random() * 0x1_0000, 4);
  const version = `4${hex(random() * 0x1000, 3)}`;
  const variant = hex(0x8000 + random() * 0x4000, 4);
  return `${timeLow}-${timeMid}-${version}-${variant}-${hex(index, 12)}`;
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

function recordFor(index: number, now: number, random: () => number): LogRecordBody {
  return {
    log_id: logIdFor(index, random),
    agent: pick(AGENTS, random),
    event: pick(EVENTS, random),
    value: Math.round(random() * 100_000_000) / 1_000_000,
    occurred_at: new Date(now - Math.floor(random() * HOUR_MS)).toISOString(),
    meta: { host: `h${Math.floor(random() * HOSTS)}` },
  };
}

/** `total` records with occurred_at within the hour before `now`, in request bodies of `perRequest`. */
export function generateBatches(total: number, perRequest: number, seed: number, now: number): RequestBatch[] {
  const random = seededRandom(seed);
  const batches: RequestBatch[] = [];
  for (let first = 0; first < total; first += perRequest) {
    const records: LogRecordBody[] = [];
    for (let index = first; index < Math.min(first + perRequest, total); index++) records.push(recordFor(index, now, random));
    batches.push({ body: Buffer.from(JSON.stringify(records)), records: records.length });
  }
  return batches;
}

export function totalBytes(batches: readonly RequestBatch[]): number {
  return batches.reduce((sum, b) => sum + b.body.length, 0);
}
