import { expect } from 'chai';
import type Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { apiRouters, buildApp } from '../../../src/app.js';
import { logBatchSchema } from '../../../src/ingest/intake/recordRules.js';
import { buildOpenApiDocument, openApiPath, OPENAPI_PATH } from '../../../src/http/openapi.js';
import { packageVersion, projectRoot } from '../../../src/paths.js';
import { request } from '../../helpers/http.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { testRoot, describeInOneRun } from '../../helpers/stores.js';

interface Operation {
  parameters?: { name: string; in: string; schema: unknown }[];
  requestBody?: { content: { 'application/json': { schema: unknown } } };
  security: Record<string, unknown>[];
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

describeInOneRun('OpenAPI document', () => {
  let svc: TestService;
  let served: Document;
  before(async () => {
    svc = await startTestService({ env: { LOGS_PORT: '0' } });
    const res = await svc.request<Document>('GET', OPENAPI_PATH);
    expect(res.status).to.equal(200);
    served = res.body;
  });
  after(() => svc.close());

  it('is served without a token on both listeners, as OpenAPI 3.1', async () => {
    expect(served.openapi).to.equal('3.1.0');
    const onLogsPort = await request(svc.logsUrl!, 'GET', OPENAPI_PATH);
    expect(onLogsPort.status).to.equal(200);
    expect(onLogsPort.body).to.deep.equal(served);
    expect((await svc.request('POST', OPENAPI_PATH)).status).to.equal(405);
  });

  it('is valid against the OpenAPI 3.1 schema', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(served));
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  it("is clean under an independent linter: Redocly's recommended rules, 0 errors and 0 warnings", async function () {
    this.timeout(60_000);
    const file = path.join(testRoot, `openapi-${randomUUID()}.json`);
    writeFileSync(file, JSON.stringify(served));
    const cli = path.join(projectRoot, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    // Exits non-zero on errors; its JSON report counts both.
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'lint', '--extends=recommended', '--format=json', file], {
      maxBuffer: 64 * 1024 ** 2,
    }).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).to.deep.equal([]);
    expect(report.totals).to.include({ errors: 0, warnings: 0 });
  });

  it('lists every route the app serves with its method, and no other', () => {
    const app = buildApp(svc.services, new Set(['control', 'logs']));
    const servedRoutes = app.middleware
      .map((m) => (m as { router?: Router }).router)
      .filter((r): r is Router => r !== undefined)
      .flatMap((r) => r.stack)
      .flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m.toLowerCase()} ${openApiPath(String(layer.path))}`));
    const documented = Object.entries(served.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(servedRoutes).to.include(`post /v1.0/logs`);
    expect(servedRoutes).to.include(`put /v1.0/events/{eventID}`);
    expect([...servedRoutes].sort()).to.deep.equal([...documented].sort());
  });

  it('documents each query and body with the very schema the route validates with', () => {
    const routers = apiRouters(svc.services);
    const all = [...routers.open, routers.sharing, routers.acknowledging, routers.calendars, routers.admin, ...routers.workspace.map((w) => w.router)];
    const document = buildOpenApiDocument(all, packageVersion) as unknown as Document;
    expect(JSON.parse(JSON.stringify(document))).to.deep.equal(served);
    let checked = 0;
    for (const route of all.flatMap((r) => r.routes)) {
      const what = `${route.spec.method} ${route.fullPath}`;
      const operation = document.paths[openApiPath(route.fullPath)]![route.spec.method]!;
      const body = route.spec.body ?? route.spec.handlerValidatedBody;
      if (body) {
        expect(operation.requestBody!.content['application/json'].schema, what).to.equal(body);
        checked++;
      } else {
        expect(operation.requestBody, what).to.equal(undefined);
      }
      const query = (route.spec.query ?? route.spec.handlerValidatedQuery) as { properties: Record<string, unknown> } | undefined;
      const queryParams = (operation.parameters ?? []).filter((p) => p.in === 'query');
      expect(
        queryParams.map((p) => p.name),
        what,
      ).to.deep.equal(Object.keys(query?.properties ?? {}));
      for (const param of queryParams) expect(param.schema, `${what} ?${param.name}`).to.equal(query!.properties[param.name]);
      checked += queryParams.length;
    }
    expect(checked).to.be.greaterThan(5);
    // The log batch is validated record by record by validateLogBatch, with this schema.
    expect(document.paths['/v1.0/logs']!.post!.requestBody!.content['application/json'].schema).to.deep.equal(logBatchSchema(1_000));
  });

  it('states who may call each route, as the service enforces it', async () => {
    for (const [path, operations] of Object.entries(served.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const url = path.replace(/\{[^}]+\}/g, randomUUID());
        const res = await svc.request(method.toUpperCase(), url, method === 'get' ? {} : { body: {} });
        const scheme = Object.keys(operation.security[0] ?? {})[0] ?? 'none';
        const what = `${method} ${path} (${scheme})`;
        // A share, acknowledge or calendar link with a random id and no token is refused like any wrong link.
        if ((path.includes('{eventID}') || path.startsWith('/ack/') || path.startsWith('/ical/')) && scheme === 'none') expect(res.status, what).to.equal(404);
        else if (scheme === 'none') expect(res.status, what).to.equal(200);
        else expect(res.status, what).to.equal(401);
      }
    }
  });
});
