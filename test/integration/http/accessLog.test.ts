// One access-log line per request at LOG_LEVEL=info, with its status and workspace; none at warn.
import { expect } from 'chai';
import type { LogLevel } from '../../../src/config.js';
import type { Json } from '../../helpers/http.js';
import { capturingLogger } from '../../helpers/logCapture.js';
import { startTestService } from '../../helpers/service.js';
import { describeInOneRun } from '../../helpers/stores.js';

async function accessLines(level: LogLevel): Promise<Record<string, Json>[]> {
  const { logger, lines } = capturingLogger(level);
  const svc = await startTestService({ logger });
  try {
    const token = await svc.tokenFor('access-ws');
    expect((await svc.request('POST', '/v1.0/logs', { token, body: [{ event: 'e', value: 1 }] })).status).to.equal(200);
    expect((await svc.request('GET', '/v1.0/events/0190b3c4-0000-7000-8000-000000000000', { token })).status).to.equal(404);
  } finally {
    await svc.close();
  }
  return lines.map((l) => JSON.parse(l) as Record<string, Json>).filter((l) => l.message === 'request');
}

describeInOneRun('access log', function () {
  this.timeout(60_000);

  it('has a line per request at info, with method, path, status and workspace', async () => {
    const lines = (await accessLines('info')).filter((l) => l.workspace_id === 'access-ws');
    expect(lines.map(({ method, path, status }) => ({ method, path, status }))).to.deep.equal([
      { method: 'POST', path: '/v1.0/logs', status: 200 },
      { method: 'GET', path: '/v1.0/events/0190b3c4-0000-7000-8000-000000000000', status: 404 },
    ]);
  });

  it('has none at warn', async () => {
    expect(await accessLines('warn')).to.deep.equal([]);
  });
});
