// Entry point: read the configuration, start this process's role, stop cleanly on a signal.
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const service = await startService(config, logger);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn('second signal: exiting at once', { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal });
    service.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error('shutdown failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`alertmon failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
