// Starts the parts of alertmon that this process's role runs, and stops them in order.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp, type Plane } from './app.js';
import { clientErrorHandler, connectRefusal } from './http/clientError.js';
import type { BackgroundTask } from './backgroundTask.js';
import { runsWorker, servesControlPlane, servesIngest, type Config } from './config.js';
import type { Logger } from './logger.js';
import { buildServices, type Services } from './services.js';
import { openStores, storeOptions, type Stores } from './stores/index.js';
import { workerTasks } from './workerTasks.js';

export interface Service {
  /** Base URL of the main listener (PORT). */
  readonly url: string;
  /** Base URL of the LOGS_PORT listener, when one is configured. */
  readonly logsUrl: string | null;
  readonly stores: Stores;
  /** The instances this process runs with (tests drive workers and routes through them). */
  readonly services: Services;
  /** Stops accepting, finishes in-flight requests, then closes the stores. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Stores opened by the caller (tests); otherwise opened from config, and closed with the service. */
  readonly stores?: Stores;
}

async function stopTasks(tasks: readonly BackgroundTask[]): Promise<void> {
  for (const task of [...tasks].reverse()) await task.stop();
}

export async function startService(config: Config, logger: Logger, options: StartOptions = {}): Promise<Service> {
  const stores = options.stores ?? (await openStores(storeOptions(config)));
  const servers: http.Server[] = [];
  let tasks: BackgroundTask[] = [];
  let builtServices: Services | null = null;
  try {
    const services = await buildServices(config, stores, logger);
    builtServices = services;
    const { host, port, logsPort } = config.http;

    const mainPlanes = new Set<Plane>();
    if (servesControlPlane(config.role)) mainPlanes.add('control');
    if (servesIngest(config.role)) mainPlanes.add('logs');

    const main = await listen(buildApp(services, mainPlanes).callback(), port, host, logger);
    servers.push(main);
    // Without PUBLIC_URL, links in messages point at this listener (its port is known only now).
    if (config.http.publicUrl === null) services.links.listeningAt(baseUrl(main, host));
    let logsServer: http.Server | null = null;
    if (logsPort !== null && servesIngest(config.role)) {
      logsServer = await listen(buildApp(services, new Set<Plane>(['logs'])).callback(), logsPort, host, logger);
      servers.push(logsServer);
    }
    if (runsWorker(config.role)) tasks = workerTasks(services);
    // The process that takes Alertmanager posts resolves their alerts at their exact end.
    if (servesControlPlane(config.role)) tasks.push(services.receivedLeases.task(stores.postgres, logger));
    for (const task of tasks) task.start();
    const url = baseUrl(main, host);
    const logsUrl = logsServer && baseUrl(logsServer, host);
    logger.info('listening', {
      url,
      logs_url: logsUrl,
      role: config.role,
      clickhouse: stores.clickhouse.mode,
      postgres: stores.postgres.mode,
      clickhouse_analyst_user: stores.clickhouse.analystUser,
    });

    let closing: Promise<void> | null = null;
    return {
      url,
      logsUrl,
      stores,
      services,
      close() {
        closing ??= (async () => {
          await Promise.all(servers.map((s) => stopServer(s, config.http.shutdownTimeoutMs)));
          await stopTasks(tasks);
          await services.ingestor?.close(config.ingest.shutdownDrainMs);
          if (!options.stores) await stores.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    await Promise.all(servers.map((s) => stopServer(s, 0)));
    await stopTasks(tasks);
    await builtServices?.ingestor?.close(0);
    if (!options.stores) await stores.close();
    throw err;
  }
}

function listen(handler: http.RequestListener, port: number, host: string, logger: Logger): Promise<http.Server> {
  return new Promise((resolve, reject) => {
    const server = http.createServer({ keepAliveTimeout: 65_000 }, handler);
    server.on('clientError', clientErrorHandler(logger));
    server.on('connect', connectRefusal(logger));
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function baseUrl(server: http.Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** Stops accepting and waits for in-flight requests; after timeoutMs, cuts the rest. */
function stopServer(server: http.Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
