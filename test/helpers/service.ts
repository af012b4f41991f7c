// Starts the whole service in-process on real stores, on an ephemeral port.
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { startService, type Service } from '../../src/service.js';
import type { Services } from '../../src/services.js';
import { openStores, type OpenStoresOptions, type Stores } from '../../src/stores/index.js';
import { request, type Json, type RequestOptions, type TestResponse } from './http.js';
import { freshStoreOptions, testRoot } from './stores.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestService {
  readonly url: string;
  readonly logsUrl: string | null;
  readonly stores: Stores;
  readonly services: Services;
  readonly storeOptions: OpenStoresOptions;
  request<T = Json>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** A request to another listener of the service (e.g. logsUrl). */
  requestTo<T = Json>(baseUrl: string, method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  /** Issues a token for a workspace through the admin API. */
  tokenFor(workspaceId: string, email?: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  readonly env?: Record<string, string>;
  /** Reopen these stores (restart tests) instead of fresh ones. */
  readonly storeOptions?: OpenStoresOptions;
  /** Receives the service's log lines (default: silent). */
  readonly logger?: Logger;
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const storeOptions = options.storeOptions ?? (await freshStoreOptions());
  // The journal belongs with the stores: a restart on the same stores replays it.
  const journalDir = path.join(testRoot, `journal-${storeOptions.clickhouse.database}`);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    JOURNAL_DIR: journalDir,
    ...options.env,
  });
  const stores = await openStores(storeOptions);
  let service: Service;
  try {
    service = await startService(config, options.logger ?? createLogger('silent'), { stores });
  } catch (err) {
    await stores.close();
    throw err;
  }
  // A test reads what it sent: after a 200 on logs, wait until the journal writer has moved
  // it into ClickHouse (in service it is there within 2 s; test/integration/ingest/visibility
  // tests that lag itself).
  const requestTo = async <T>(baseUrl: string, method: string, path: string, opts?: RequestOptions) => {
    const res = await request<T>(baseUrl, method, path, opts);
    if (method === 'POST' && path === '/v1.0/logs' && res.status === 200) await service.services.ingestor?.caughtUp();
    return res;
  };
  const call = <T>(method: string, path: string, opts?: RequestOptions) => requestTo<T>(service.url, method, path, opts);
  return {
    url: service.url,
    logsUrl: service.logsUrl,
    stores,
    services: service.services,
    storeOptions,
    request: call,
    requestTo,
    async tokenFor(workspaceId, email) {
      const res = await call<{ token: string }>('POST', '/v1.0/admin/tokens', {
        token: TEST_ADMIN_TOKEN,
        body: email === undefined ? { user_id: workspaceId } : { user_id: workspaceId, email },
      });
      if (res.status !== 201) throw new Error(`token for ${workspaceId}: ${res.status} ${res.text}`);
      return res.body.token;
    },
    async close() {
      await service.close();
      await stores.close();
    },
  };
}
