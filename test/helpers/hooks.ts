// Root hooks, loaded by .mocharc.json for every run.
import { removeTestStores } from './stores.js';

export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await removeTestStores();
  },
};
