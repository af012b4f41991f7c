// mocha's spec reporter, and the time each test file took, hooks included: from the start of
// its first top-level suite to the end of its last. scripts/test.ts names it as the reporter
// and, with TEST_FILE_TIMES_OUT set, reads the times from that file (a JSON object, file → ms)
// to print the slowest files after all runs. CommonJS, as mocha loads a reporter by require().
const { writeFileSync } = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

const { EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_RUN_END } = Mocha.Runner.constants;

class SpecWithFileTimes extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = new Map();
    const times = {};
    const isTopLevel = (suite) => suite.parent?.root === true && typeof suite.file === 'string';
    const fileOf = (suite) => path.relative(process.cwd(), suite.file);
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (isTopLevel(suite)) started.set(suite, performance.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const start = started.get(suite);
      if (start === undefined) return;
      const file = fileOf(suite);
      times[file] = (times[file] ?? 0) + (performance.now() - start);
    });
    runner.once(EVENT_RUN_END, () => {
      const out = process.env.TEST_FILE_TIMES_OUT;
      if (out) writeFileSync(out, JSON.stringify(times));
    });
  }
}

module.exports = SpecWithFileTimes;
