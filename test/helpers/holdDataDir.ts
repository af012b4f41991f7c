// Run as a child process by the lock tests: takes DATA_DIR (argv[2]), says "locked", and
// holds it until it is killed.
import { lockDataDir } from '../../src/stores/dataDirLock.js';

await lockDataDir(process.argv[2]!);
process.stdout.write('locked\n');
setInterval(() => {}, 60_000);
