// Command-line tools act through the running service's admin API when they can (the
// embedded stores belong to that process), and open the stores directly when no service
// runs. Configuration comes from the same environment variables as the service.
import got, { RequestError } from 'got';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import { dataDirOwner } from '../../src/stores/dataDirLock.js';
import { openStores, storeOptions, type Stores } from '../../src/stores/index.js';

export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

export function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function serviceUrl(config: Config): string {
  const host = config.http.host === '0.0.0.0' || config.http.host === '::' ? '127.0.0.1' : config.http.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.http.port}`;
}

/**
 * POSTs body to an admin route of the running service, or returns null when no service
 * answers at HOST:PORT. Errors of the service itself are reported and end the process.
 */
export async function postToAdminApi<T>(config: Config, path: string, body: unknown): Promise<T | null> {
  if (config.http.adminToken === null) return null;
  try {
    return await got
      .post(`${serviceUrl(config)}/v1.0/admin${path}`, {
        json: body,
        headers: { authorization: `Bearer ${config.http.adminToken}` },
        timeout: { request: 60_000 },
        retry: { limit: 0 },
      })
      .json<T>();
  } catch (err) {
    if (err instanceof RequestError && err.response === undefined && err.code === 'ECONNREFUSED') return null;
    if (err instanceof RequestError && err.response) {
      const text = String(err.response.body);
      try {
        const { error } = JSON.parse(text) as { error: { message: string; details?: { path: string; message: string }[] } };
        fail([error.message, ...(error.details ?? []).map((d) => `  ${d.path}: ${d.message}`)].join('\n'));
      } catch {
        fail(`${err.response.statusCode}: ${text}`);
      }
    }
    throw err;
  }
}

/** Opens the stores for a one-off task, unless a running service owns the embedded ones. */
export async function withStores<T>(config: Config, task: (stores: Stores) => Promise<T>, { migrate = true } = {}): Promise<T> {
  const options = storeOptions(config);
  if (options.lockDir !== undefined) {
    const owner = dataDirOwner(options.lockDir);
    if (owner !== null) {
      fail(
        `The service (${owner.pid === null ? 'another process' : `pid ${owner.pid}`}) holds DATA_DIR ${options.lockDir}. Set ADMIN_TOKEN to the service's ` +
          `admin token so that this command goes through its admin API.`,
      );
    }
  }
  const stores = await openStores({ ...options, migrate });
  try {
    return await task(stores);
  } finally {
    await stores.close();
  }
}
