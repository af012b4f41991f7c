// Alerting as code (docs/as-code.md): export the workspace's configuration as one
// document, plan a document against it, apply a document in one transaction.
import { stringify } from 'yaml';
import type { ConfigDocument } from '../../ascode/document.js';
import { applyConfiguration } from '../../ascode/apply.js';
import { managedStatus } from '../../ascode/managed.js';
import { documentOf, exportConfiguration, loadState, planConfiguration, type AsCodeDeps } from '../../ascode/plan.js';
import { validationFailed } from '../../errors.js';
import { isUuid } from '../../ids.js';
import { ApiRouter } from '../apiRouter.js';
import { workspaceOf, type AppContext } from '../context.js';
import { compileBodySchema, inputProblems } from '../validation.js';
import { CONFIG_MAX_BYTES, readConfigDocument } from './documentBody.js';
import { configDocumentSchema, managedQuerySchema, managedResponseSchema, MAX_OBJECTS_PER_KIND, planQuerySchema, planResponseSchema } from './schemas.js';

const validateDocument = compileBodySchema(configDocumentSchema);

/** At most this many problems are answered: an invalid document of 10,000 objects is not answered with every one. */
const MAX_DETAILS = 100;

const KINDS = ['dimensions', 'destinations', 'people', 'schedules', 'escalation_policies', 'alert_sources', 'policies', 'silences'] as const;

/** The request's document, checked against the document schema (details are paths into it). */
async function documentOfRequest(ctx: AppContext): Promise<{ document: ConfigDocument; expectedVersion: string | undefined }> {
  const value = await readConfigDocument(ctx);
  // The sizes first: a schema check of 100,000 objects would cost what the bound is there to spare.
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const kind of KINDS) {
      const list = (value as Record<string, unknown>)[kind];
      const max = kind === 'policies' ? MAX_OBJECTS_PER_KIND.policies : MAX_OBJECTS_PER_KIND.default;
      if (Array.isArray(list) && list.length > max) throw validationFailed([{ path: `/${kind}`, message: `must have at most ${max} items` }]);
    }
  }
  const problems = inputProblems(validateDocument, value);
  if (problems.length > 0) {
    throw validationFailed(
      problems.slice(0, MAX_DETAILS),
      `The document is invalid; see details${problems.length > MAX_DETAILS ? ` (the first ${MAX_DETAILS} of ${problems.length})` : ''}.`,
    );
  }
  const { expected_version, ...document } = value as ConfigDocument & { expected_version?: string };
  return { document, expectedVersion: expected_version };
}

const wantsYaml = (ctx: AppContext) => ctx.accepts('application/json', 'application/yaml', 'text/yaml') !== 'application/json' && ctx.get('Accept') !== '';

const documentDescription = `The document as GET /v1.0/config answers it, in JSON or YAML (Content-Type application/yaml), at most ${CONFIG_MAX_BYTES / 1024 / 1024} MB; YAML aliases are expanded at most 1000 times and a key given twice in a mapping is refused.`;

export function configRoutes(deps: AsCodeDeps): ApiRouter {
  const { postgres } = deps;
  return new ApiRouter('config', '/v1.0/config')
    .add(
      {
        method: 'get',
        path: '/',
        summary: 'Export the alerting configuration',
        description:
          'Every destination, person, schedule, escalation policy, alert source, policy and silence of the workspace, by key (an object without a key gets one made from its name), references by key, event definitions by agent and event; no ids, no timestamps, no secrets (not even abbreviated). JSON, or YAML with Accept: application/yaml. The header Alertmon-Config-Version is the version a plan answers.',
        responses: {
          200: { description: 'The document.', schema: configDocumentSchema },
        },
      },
      async (ctx) => {
        const { document, version } = await exportConfiguration(postgres, workspaceOf(ctx));
        ctx.set('Alertmon-Config-Version', version);
        if (wantsYaml(ctx)) {
          ctx.type = 'application/yaml; charset=utf-8';
          ctx.body = stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 });
        } else {
          ctx.body = document;
        }
      },
    )
    .add(
      {
        method: 'get',
        path: '/managed',
        summary: 'Whether an object is managed from a file',
        description:
          'Whether the last document applied to the workspace had the object, and whether it was changed since in the console or through the API (the next apply of the file will overwrite that change). The console shows it on the object’s edit form. A dimension declaration is named by its event name (`kind=dimensions&id=<event>`), every other object by its id.',
        query: managedQuerySchema,
        responses: {
          200: { description: 'Managed or not; when managed, since when and whether changed since.', schema: managedResponseSchema },
          400: { description: 'An unknown kind, or an id that is not a UUID (but for dimensions).' },
        },
      },
      async (ctx, { query }) => {
        if (query.kind !== 'dimensions' && !isUuid(query.id))
          throw validationFailed([{ path: '/id', message: 'must be a UUID' }], 'Invalid query: id must be a UUID.');
        const status = await managedStatus(postgres, workspaceOf(ctx), query.kind, query.id);
        ctx.body = status.managed ? { ...status, applied_at: status.applied_at.toISOString(), updated_at: status.updated_at.toISOString() } : status;
      },
    )
    .add(
      {
        method: 'post',
        path: '/plan',
        summary: 'Plan a configuration document',
        description: `What applying the document would change, object by object and field by field; nothing is changed. Objects of the workspace the document does not have are listed as unmanaged, or as deletes with prune=true. ${documentDescription}`,
        query: planQuerySchema,
        handlerValidatedBody: configDocumentSchema,
        responses: {
          200: { description: 'The changes.', schema: planResponseSchema },
          400: { description: 'The document is invalid (validation_failed with paths into it, invalid_yaml, invalid_json, document_too_deep).' },
          413: { description: 'The document is larger than the limit.' },
        },
      },
      async (ctx, { query }) => {
        const { document } = await documentOfRequest(ctx);
        ctx.body = await planConfiguration(postgres, workspaceOf(ctx), document, query.prune ?? false);
      },
    )
    .add(
      {
        method: 'post',
        path: '/apply',
        summary: 'Apply a configuration document',
        description: `Makes every change of the document's plan in one transaction: all of them, or (any object refused, anywhere) none. A destination's secrets left out of the document are kept. With expected_version (the version a plan answered) and the configuration changed since, 409 config_changed and nothing changes. ${documentDescription}`,
        query: planQuerySchema,
        handlerValidatedBody: configDocumentSchema,
        responses: {
          200: { description: 'The changes made; version is the configuration’s version after them.', schema: planResponseSchema },
          400: { description: 'The document is invalid, or an object in it is refused by its resource (paths into the document); nothing changed.' },
          404: { description: 'An object of the document names something the workspace does not have; nothing changed.' },
          409: { description: 'config_changed (expected_version), key_taken or a workspace limit; nothing changed.' },
          413: { description: 'The document is larger than the limit.' },
        },
      },
      async (ctx, { query }) => {
        const workspaceId = workspaceOf(ctx);
        const { document, expectedVersion } = await documentOfRequest(ctx);
        const plan = await applyConfiguration(deps, workspaceId, document, { prune: query.prune ?? false, expectedVersion });
        ctx.body = { ...plan, version: documentOf(await loadState(postgres, workspaceId)).version };
      },
    );
}
