// The timezones an event may use: IANA names (exact spelling, aliases such as
// Asia/Calcutta included) that both ClickHouse and Node's Intl know, since ClickHouse
// re-buckets day rollups and Intl computes each record's day at ingest.
import type { ClickHouseStore } from '../stores/clickhouse.js';

export class TimezoneCatalog {
  private constructor(private readonly names: ReadonlySet<string>) {}

  /** Where no ClickHouse is open (ROLE=ingest with JOURNAL_URL, which serves no event routes): Node's names only. */
  static ofIntl(): TimezoneCatalog {
    return new TimezoneCatalog(new Set(['UTC', ...Intl.supportedValuesOf('timeZone')]));
  }

  static async load(clickhouse: ClickHouseStore): Promise<TimezoneCatalog> {
    const result = await clickhouse.client.query({ query: 'SELECT time_zone FROM system.time_zones', format: 'JSONEachRow' });
    const names = (await result.json<{ time_zone: string }>()).map((r) => r.time_zone).filter(intlKnows);
    return new TimezoneCatalog(new Set(names));
  }

  has(name: string): boolean {
    return this.names.has(name);
  }
}

function intlKnows(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
