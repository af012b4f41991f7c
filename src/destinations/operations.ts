// Destination operations: create, read, list, update. A PUT keeps the stored secrets when
// it omits credentials or sends back abbreviated values exactly as they were read; an
// abbreviated value is never stored as the secret (docs/api.md, Secrets).
import { conflict, invalid, notFound, validationFailed, type ErrorDetail } from '../errors.js';
import type { PageOrAll } from '../page.js';
import { newId } from '../ids.js';
import { channelConfigProblems, channelModule, isChannel, mergeSentBack } from '../channels/registry.js';
import { newSigningSecret, ROTATION_OVERLAP_MS } from '../channels/webhookSignature.js';
import { templateProblems } from '../channels/templates.js';
import type { ValidationContext } from '../channels/model.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import {
  findDestination,
  insertDestination,
  lockAndCountDestinations,
  rotateSigningSecretRow,
  listDestinationRows,
  ownerEmailOf,
  unknownPolicyIds,
  updateDestinationRow,
  type StoredFields,
} from './store.js';
import { CHANNELS, SCOPES, WEBHOOK_FORMATS, type Channel, type Destination, type DestinationInput, type MessageOptions, type Scope } from './model.js';

/** The channels' configuration (provider origins) the rules check against. */
export type ChannelRules = ValidationContext['channels'];

export async function getDestination(db: Queryable, workspaceId: string, id: string): Promise<Destination> {
  const destination = await findDestination(db, workspaceId, id);
  if (!destination) throw notFound('destination');
  return destination;
}

export function listDestinations(db: Queryable, workspaceId: string, page: PageOrAll): Promise<Destination[]> {
  return listDestinationRows(db, workspaceId, page);
}

/** Creates a destination; past `maxPerWorkspace` destinations in the workspace, 409 destination_limit_reached. */
export async function createDestination(
  db: PostgresStore,
  workspaceId: string,
  input: DestinationInput,
  channels: ChannelRules,
  maxPerWorkspace: number,
): Promise<Destination> {
  const scope = (input.scope ?? 'all') as Scope;
  const fields: StoredFields = {
    channel: (input.channel ?? '') as Channel,
    url: input.url ?? null,
    credentials: input.credentials ?? null,
    scope,
    policy_ids: normalisePolicyIds(input.policy_ids ?? []),
    enabled: input.enabled ?? true,
    signing_secret: null,
    ...messageOptionsOf(input, null),
  };
  await validate(db, workspaceId, fields, channels);
  return db.transaction(async (tx) => {
    if ((await lockAndCountDestinations(tx, workspaceId)) >= maxPerWorkspace) {
      throw conflict(
        'destination_limit_reached',
        `The workspace has reached its limit of ${maxPerWorkspace} destinations; delete destinations it no longer needs.`,
      );
    }
    return insertDestination(tx, workspaceId, newId(), { ...fields, signing_secret: channelModule(fields.channel).signsRequests ? newSigningSecret() : null });
  });
}

export async function updateDestination(db: Queryable, workspaceId: string, id: string, input: DestinationInput, channels: ChannelRules): Promise<Destination> {
  const current = await getDestination(db, workspaceId, id);
  const scope = (input.scope ?? current.scope) as Scope;
  // Leaving the policies scope drops its list unless the client sent one (then it must be empty).
  const policyIds = input.policy_ids ?? (scope === 'all' ? [] : current.policy_ids);
  const fields: StoredFields = {
    channel: (input.channel ?? current.channel) as Channel,
    ...mergeSentBack(current.channel, current, input),
    scope,
    policy_ids: normalisePolicyIds(policyIds),
    enabled: input.enabled ?? current.enabled,
    signing_secret: current.signing_secret,
    ...messageOptionsOf(input, current),
  };
  await validate(db, workspaceId, fields, channels);
  // A destination that becomes a webhook gets a secret (read it by rotating); one that stops being one loses it.
  const secret = channelModule(fields.channel).signsRequests ? (current.signing_secret ?? newSigningSecret()) : null;
  const updated = await updateDestinationRow(db, workspaceId, id, { ...fields, signing_secret: secret });
  if (!updated) throw notFound('destination');
  return updated;
}

/** A new signing secret for a webhook destination; the previous one signs beside it for 24 hours. */
export async function rotateSigningSecret(db: Queryable, workspaceId: string, id: string): Promise<Destination> {
  const current = await getDestination(db, workspaceId, id);
  if (!channelModule(current.channel).signsRequests) {
    throw invalid('not_signed', `A ${current.channel} destination has no signing secret; only webhook requests are signed.`);
  }
  const rotated = await rotateSigningSecretRow(db, workspaceId, id, newSigningSecret(), ROTATION_OVERLAP_MS);
  if (!rotated) throw notFound('destination');
  return rotated;
}

/** The grouping window and templates a write stores: those given, else the current ones (create: none); an empty template is none. */
function messageOptionsOf(input: DestinationInput, current: MessageOptions | null): MessageOptions {
  const template = (given: string | null | undefined, stored: string | null) =>
    given === undefined ? stored : given === null || given.trim() === '' ? null : given;
  return {
    group_window_seconds: input.group_window_seconds ?? current?.group_window_seconds ?? 0,
    title_template: template(input.title_template, current?.title_template ?? null),
    message_template: template(input.message_template, current?.message_template ?? null),
    body_template: template(input.body_template, current?.body_template ?? null),
    format: (input.format ?? current?.format ?? 'alertmon') as MessageOptions['format'],
  };
}

function normalisePolicyIds(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

async function validate(db: Queryable, workspaceId: string, fields: StoredFields, channels: ChannelRules): Promise<void> {
  if (!isChannel(fields.channel)) {
    throw validationFailed([{ path: '/channel', message: `must be one of: ${CHANNELS.join(', ')} (sms is not supported)` }]);
  }
  const problems: ErrorDetail[] = [...scopeProblems(fields)];
  const ownerEmail = fields.channel === 'email' && fields.url === null ? await ownerEmailOf(db, workspaceId) : null;
  problems.push(...channelConfigProblems(fields.channel, fields, { channels, ownerEmail }));
  problems.push(...templateProblems(fields, fields.channel));
  if (!(WEBHOOK_FORMATS as readonly string[]).includes(fields.format)) {
    problems.push({ path: '/format', message: `must be one of: ${WEBHOOK_FORMATS.join(', ')}` });
  } else if (fields.format === 'alertmanager' && fields.channel !== 'webhook') {
    problems.push({ path: '/format', message: 'alertmanager is a webhook body format; other channels send messages' });
  } else if (fields.format === 'alertmanager' && fields.body_template !== null) {
    problems.push({ path: '/format', message: 'alertmanager sends Alertmanager’s body; a body_template would replace it (set one or the other)' });
  }
  if (fields.scope === 'policies') {
    for (const id of await unknownPolicyIds(db, workspaceId, fields.policy_ids)) {
      const index = fields.policy_ids.indexOf(id);
      problems.push({ path: `/policy_ids/${index}`, message: `is not a policy or alert source of this workspace (${id})` });
    }
  }
  if (problems.length > 0) throw validationFailed(problems, 'The destination configuration is invalid; see details.');
}

function scopeProblems(fields: StoredFields): ErrorDetail[] {
  if (!(SCOPES as readonly string[]).includes(fields.scope)) return [{ path: '/scope', message: `must be one of: ${SCOPES.join(', ')}` }];
  if (fields.scope === 'all' && fields.policy_ids.length > 0) {
    return [{ path: '/policy_ids', message: 'must be empty when scope is all (use scope "policies" to route by policy)' }];
  }
  if (fields.scope === 'policies' && fields.policy_ids.length === 0) {
    return [{ path: '/policy_ids', message: 'must list at least one policy or alert source when scope is policies' }];
  }
  return [];
}
