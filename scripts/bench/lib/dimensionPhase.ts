// The dimensions phase of the ingest benchmark (--dimensions N): the same records sent twice
// over, into a workspace with N keys declared for every event name and into one with none, in
// alternating rounds on one service, each from the first request until the journal has moved
// everything into ClickHouse (the series are derived by the writer, after the 200). Every
// record's meta carries the N keys in both runs, with values that give `series` distinct
// series per event name (agent and labels); only the declaration differs. Target: the
// declared run at ≥ 0.8 of the other's rate.
import { seededRandom } from '../../lib/seededRandom.js';
import { generateBatches, type LogRecordBody, type RequestBatch } from './dataset.js';
import { runLoad } from './load.js';
import { issueWorkspaceToken, queryNumber, type BenchService } from './benchService.js';

export const DIMENSION_TARGET = 0.8;

export interface DimensionPhaseOptions {
  readonly dimensions: number;
  readonly series: number;
  readonly records: number;
  readonly recordsPerRequest: number;
  readonly concurrency: number;
  readonly rounds: number;
  readonly seed: number;
  readonly maxLoadMinutes: number;
}

export interface DimensionRound {
  readonly declared: boolean;
  readonly records: number;
  readonly acknowledgedPerS: number;
  readonly storedPerS: number;
}

export interface DimensionPhaseResult {
  readonly rounds: readonly DimensionRound[];
  /** Records summed over the declared workspace's series minutes: must equal what it acknowledged. */
  readonly seriesCount: number;
  readonly declaredRecords: number;
}

const keyOf = (k: number) => `d${k + 1}`;

/** The generated records, each given the N keys: series s of an event name is agent s % 10 and labels from s. */
function withDimensions(batches: readonly RequestBatch[], options: DimensionPhaseOptions, seed: number): RequestBatch[] {
  const random = seededRandom(seed);
  return batches.map((batch) => {
    const records = (JSON.parse(batch.body.toString()) as LogRecordBody[]).map((r) => {
      const s = Math.floor(random() * options.series);
      const meta: Record<string, string> = { host: r.meta.host };
      // The last key names the series; the others repeat few values, as real keys (route, code) do.
      for (let k = 0; k < options.dimensions; k++) meta[keyOf(k)] = k === options.dimensions - 1 ? `s${Math.floor(s / 10)}` : `v${s % (3 + k * 4)}`;
      return { ...r, agent: `agent-${String((s % 10) + 1).padStart(2, '0')}`, meta };
    });
    return { body: Buffer.from(JSON.stringify(records)), records: records.length };
  });
}

export async function measureDimensions(
  service: BenchService,
  options: DimensionPhaseOptions,
  drained: () => Promise<void>,
  progress: (message: string) => void,
): Promise<DimensionPhaseResult> {
  const declaredWs = 'bench-dims';
  const tokens = { declared: await issueWorkspaceToken(service, declaredWs), plain: await issueWorkspaceToken(service, 'bench-dims-none') };
  const events = [
    ...new Set(generateBatches(2_000, 250, 1, Date.now()).flatMap((b) => (JSON.parse(b.body.toString()) as LogRecordBody[]).map((r) => r.event))),
  ];
  const keys = Array.from({ length: options.dimensions }, (_, k) => keyOf(k));
  for (const event of events) {
    const res = await fetch(`${service.url}/v1.0/dimensions/${encodeURIComponent(event)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${tokens.declared}`, 'content-type': 'application/json' },
      body: JSON.stringify({ keys }),
    });
    if (res.status !== 200) throw new Error(`PUT /v1.0/dimensions/${event}: ${res.status} ${await res.text()}`);
  }
  const rounds: DimensionRound[] = [];
  let declaredRecords = 0;
  for (let round = 0; round < options.rounds; round++) {
    // Each round's records are new (their log_ids too); both runs of a round send the same ones.
    const batches = withDimensions(
      generateBatches(options.records, options.recordsPerRequest, options.seed + 100 + round, Date.now()),
      options,
      options.seed + round,
    );
    for (const declared of round % 2 === 0 ? [false, true] : [true, false]) {
      progress(`dimensions round ${round + 1}: ${declared ? `${options.dimensions} keys declared` : 'no keys declared'}…`);
      const started = performance.now();
      const load = await runLoad({
        url: service.url,
        token: declared ? tokens.declared : tokens.plain,
        batches,
        concurrency: options.concurrency,
        maxDurationMs: options.maxLoadMinutes * 60_000,
        signal: new AbortController().signal,
      });
      if (load.timedOut || load.aborted) throw new Error('a dimensions closed loop was cut short');
      await drained();
      const storedMs = performance.now() - started;
      if (declared) declaredRecords += load.acceptedRecords;
      rounds.push({
        declared,
        records: load.acceptedRecords,
        acknowledgedPerS: load.acceptedRecords / (load.wallMs / 1000),
        storedPerS: load.acceptedRecords / (storedMs / 1000),
      });
    }
  }
  const seriesCount = await queryNumber(service, `SELECT sum(count) AS n FROM series_minute WHERE workspace_id = '${declaredWs}'`);
  return { rounds, seriesCount, declaredRecords };
}

export function formatDimensionReport(result: DimensionPhaseResult, options: DimensionPhaseOptions): { text: string; met: boolean } {
  // Over all rounds of a kind: their records over their time, so that a short round weighs as little as it lasted.
  const rate = (declared: boolean) => {
    const rounds = result.rounds.filter((r) => r.declared === declared);
    return rounds.reduce((n, r) => n + r.records, 0) / rounds.reduce((s, r) => s + r.records / r.storedPerS, 0);
  };
  const ratio = rate(true) / rate(false);
  const exact = result.seriesCount === result.declaredRecords;
  const met = ratio >= DIMENSION_TARGET && exact;
  const lines = [
    `\ndimensions: ${options.dimensions} keys declared on every event name, ${options.series.toLocaleString('en-US')} series per name, ${options.concurrency} clients, ${options.rounds} rounds alternating`,
    ...result.rounds.map(
      (r, i) =>
        `  round ${Math.floor(i / 2) + 1}, ${r.declared ? 'declared' : 'none    '}: ${r.records.toLocaleString('en-US')} records, acknowledged ${Math.round(r.acknowledgedPerS).toLocaleString('en-US')} records/s, in ClickHouse ${Math.round(r.storedPerS).toLocaleString('en-US')} records/s`,
    ),
    `  series minutes hold ${result.seriesCount.toLocaleString('en-US')} of ${result.declaredRecords.toLocaleString('en-US')} records: ${exact ? 'exact' : 'NOT EXACT'}`,
    `  ratio (declared / none, all rounds, to ClickHouse): ${ratio.toFixed(2)}; target ≥ ${DIMENSION_TARGET}: ${met ? 'met' : 'NOT MET'}`,
  ];
  return { text: `${lines.join('\n')}\n`, met };
}
