// Root hooks, loaded by .mocharc.json for every run.
import { removeTestStores } from './stores.js';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    // Removing every suite's store files took over 60 s on the shared 2-core machine.
    this.timeout(300_000);
    await removeTestStores();
  },
};
