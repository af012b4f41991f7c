// LISTEN for Postgres notifications (NOTIFY), for signals between processes that share a
// Postgres server: a connection of its own, outside the pool (a LISTEN lives as long as its
// session), opened again after a loss; what is notified while it is down is not heard, so a
// listener must have another way to catch up (a periodic task does). Embedded PGlite is one
// process's database: nothing outside the process can notify, so there nothing is listened to.
import pg from 'pg';

export type Unlisten = () => Promise<void>;

const RECONNECT_MS = 1_000;

/** Calls onPayload with each notification's payload on `channel` until the returned function is called. */
export function listenOnServer(url: string, channel: string, onPayload: (payload: string) => void, onError: (err: unknown) => void): Unlisten {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;

  const connect = async () => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel) onPayload(n.payload ?? '');
    });
    c.on('error', (err) => {
      if (client === c) onError(err);
      lost(c);
    });
    client = c;
    try {
      await c.connect();
      // The channel name is a fixed identifier of ours, never input.
      await c.query(`LISTEN ${channel}`);
    } catch (err) {
      // Ended by the caller meanwhile: not a loss.
      if (client === c) onError(err);
      lost(c);
    }
  };
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    c.end().catch(() => {});
    if (!stopped) retry = setTimeout(() => void connect(), RECONNECT_MS);
  };
  void connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}
