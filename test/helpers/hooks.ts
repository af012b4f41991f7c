// Root hooks, loaded by .mocharc.json for every run.
import { removeTestStores } from './stores.js';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    // Removing every store of the run is disk-bound: measured 11.7 s for 311 MB after a few
    // suites on a shared disk, over 60 s after the whole suite. It is cleanup, not a test.
    this.timeout(600_000);
    await removeTestStores();
  },
};
