// The ingest path's cache of event definitions: known pairs are answered from it, and what
// another process changes in Postgres is seen once an entry is older than the cache's TTL
// (served stale while one refresh of all a batch's stale pairs runs).
import { expect } from 'chai';
import { EventDirectory } from '../../../src/events/eventDirectory.js';
import { openStores, type Stores } from '../../../src/stores/index.js';
import { freshStoreOptions } from '../../helpers/stores.js';

describe('event directory', function () {
  this.timeout(60_000);
  let stores: Stores;
  before(async () => {
    stores = await openStores(await freshStoreOptions());
    await stores.postgres.query("INSERT INTO workspaces (user_id) VALUES ('directory-ws')");
  });
  after(() => stores.close());

  const pairs = Array.from({ length: 40 }, (_, i) => ({ agent: 'host', event: `metric.${i}` }));
  const ids = (answers: readonly unknown[]) => answers.map((a) => (a as { eventId: string }).eventId);

  it("answers known pairs from its cache, and sees another process's timezone change after its TTL", async () => {
    // A TTL long enough that the first lookups are still fresh when the update is made, even on
    // a loaded machine (a refresh started earlier could read the update on a server's pool).
    const directory = new EventDirectory(stores.postgres, 1_000, 2_000);
    const first = await directory.resolveAll('directory-ws', pairs);
    expect(first.every((a) => !(a instanceof Error) && a.created)).to.equal(true);
    const again = await directory.resolveAll('directory-ws', pairs);
    expect(ids(again)).to.deep.equal(ids(first));
    expect(again.every((a) => !(a instanceof Error) && !a.created)).to.equal(true);

    // Another process moves every event to Asia/Kolkata.
    await stores.postgres.query("UPDATE event_definitions SET timezone = 'Asia/Kolkata' WHERE user_id = 'directory-ws'");
    expect(directory.timezoneOf(ids(first)[0]!)).to.equal('UTC');
    await new Promise((resolve) => setTimeout(resolve, 2_050));
    // Stale: served at once, and refreshed behind.
    expect(ids(await directory.resolveAll('directory-ws', pairs))).to.deep.equal(ids(first));
    const deadline = Date.now() + 5_000;
    while (ids(first).some((id) => directory.timezoneOf(id) !== 'Asia/Kolkata') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(ids(first).map((id) => directory.timezoneOf(id))).to.deep.equal(ids(first).map(() => 'Asia/Kolkata'));
  });

  it('creates only what fits under the limit, in order, and answers the rest with the limit', async () => {
    await stores.postgres.query("INSERT INTO workspaces (user_id) VALUES ('directory-capped')");
    const directory = new EventDirectory(stores.postgres, 25);
    const answers = await directory.resolveAll('directory-capped', pairs);
    expect(answers.map((a) => (a instanceof Error ? 'limit' : 'ok'))).to.deep.equal(pairs.map((_, i) => (i < 25 ? 'ok' : 'limit')));
  });
});
