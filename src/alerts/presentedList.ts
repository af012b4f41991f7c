// GET /v1.0/alerts, presented. Clients read the list whole (the SDKs have no `limit`: up to
// 10,000 alerts a call), and some read it again and again, during a storm too, when the same
// one process is raising and delivering. Reading and presenting 1,000 alerts costs about
// 18 ms of that process on the embedded store (most of it Postgres producing and `pg`
// parsing 37 columns a row); reading only their ids and row versions (xmin, which every
// write to a row changes) about 2 ms. So each alert's presented JSON is kept with the
// version it was presented from, and a read lists ids and versions, then reads whole only
// the alerts that are new or changed since. The answer is exactly what one statement would
// have read when the versions were listed: an alert written again between the two reads
// makes the read start over.
import type { Page } from '../page.js';
import type { Queryable } from '../stores/postgres.js';
import { alertJson, type AlertStatus } from './model.js';
import { listAlertRows, listAlertVersions, readAlertsWithVersions } from './store.js';

/** Presented alerts kept: two whole 10,000-alert lists, about 1 KB each. */
const DEFAULT_CAPACITY = 20_000;
/** Reads of a list whose alerts keep changing between its two statements, before one statement reads it whole. */
const ATTEMPTS = 3;

interface Presented {
  readonly version: string;
  readonly json: string;
}

export class PresentedAlertList {
  /** By alert id, oldest kept first; ids are unique across workspaces, and a list names only its workspace's. */
  private readonly kept = new Map<string, Presented>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** The page of the workspace's alerts, newest first, as the JSON text of an array of alertJson. */
  async read(db: Queryable, workspaceId: string, page: Page, status?: AlertStatus): Promise<string> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const listed = await listAlertVersions(db, workspaceId, page, status);
      const changed = listed.filter((a) => this.kept.get(a.alert_id)?.version !== a.version).map((a) => a.alert_id);
      for (const alert of await readAlertsWithVersions(db, workspaceId, changed)) {
        this.keep(alert.alert_id, { version: alert.version, json: JSON.stringify(alertJson(alert)) });
      }
      const parts: string[] = [];
      for (const a of listed) {
        const presented = this.kept.get(a.alert_id);
        // Written again, or gone, since it was listed.
        if (presented?.version !== a.version) break;
        parts.push(presented.json);
      }
      if (parts.length === listed.length) return `[${parts.join(',')}]`;
    }
    return JSON.stringify((await listAlertRows(db, workspaceId, page, status)).map(alertJson));
  }

  private keep(alertId: string, presented: Presented): void {
    this.kept.delete(alertId);
    this.kept.set(alertId, presented);
    if (this.kept.size <= this.capacity) return;
    for (const id of this.kept.keys()) {
      this.kept.delete(id);
      if (this.kept.size <= this.capacity) break;
    }
  }
}
