// Destination operations: create, read, list, update. A PUT keeps the stored secrets when
// it omits credentials or sends back abbreviated values exactly as they were read; an
// abbreviated value is never stored as the secret (docs/api.md, Secrets).
import { notFound, validationFailed, type ErrorDetail } from '../errors.js';
import type { PageOrAll } from '../page.js';
import { newId } from '../ids.js';
import { abbreviateSecret } from '../logger.js';
import type { Queryable } from '../stores/postgres.js';
import { presentUrl, SECRET_CREDENTIALS } from './secrets.js';
import { findDestination, insertDestination, listDestinationRows, ownerEmailOf, unknownPolicyIds, updateDestinationRow, type StoredFields } from './store.js';
import { CHANNELS, SCOPES, type Channel, type Credentials, type Destination, type DestinationInput, type Scope } from './types.js';
import { channelConfigProblems, type ProviderOrigins } from './validation.js';

export async function getDestination(db: Queryable, workspaceId: string, id: string): Promise<Destination> {
  const destination = await findDestination(db, workspaceId, id);
  if (!destination) throw notFound('destination');
  return destination;
}

export function listDestinations(db: Queryable, workspaceId: string, page: PageOrAll): Promise<Destination[]> {
  return listDestinationRows(db, workspaceId, page);
}

export async function createDestination(db: Queryable, workspaceId: string, input: DestinationInput, providers: ProviderOrigins): Promise<Destination> {
  const scope = (input.scope ?? 'all') as Scope;
  const fields: StoredFields = {
    channel: (input.channel ?? '') as Channel,
    url: input.url ?? null,
    credentials: input.credentials ?? null,
    scope,
    policy_ids: normalisePolicyIds(input.policy_ids ?? []),
    enabled: input.enabled ?? true,
  };
  await validate(db, workspaceId, fields, providers);
  return insertDestination(db, workspaceId, newId(), fields);
}

export async function updateDestination(
  db: Queryable,
  workspaceId: string,
  id: string,
  input: DestinationInput,
  providers: ProviderOrigins,
): Promise<Destination> {
  const current = await getDestination(db, workspaceId, id);
  const scope = (input.scope ?? current.scope) as Scope;
  // Leaving the policies scope drops its list unless the client sent one (then it must be empty).
  const policyIds = input.policy_ids ?? (scope === 'all' ? [] : current.policy_ids);
  const fields: StoredFields = {
    channel: (input.channel ?? current.channel) as Channel,
    url: mergeUrl(current, input.url),
    credentials: mergeCredentials(current.credentials, input.credentials),
    scope,
    policy_ids: normalisePolicyIds(policyIds),
    enabled: input.enabled ?? current.enabled,
  };
  await validate(db, workspaceId, fields, providers);
  const updated = await updateDestinationRow(db, workspaceId, id, fields);
  if (!updated) throw notFound('destination');
  return updated;
}

function normalisePolicyIds(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

/** The stored URL when the client sent back the abbreviated one it read. */
function mergeUrl(current: Destination, url: string | null | undefined): string | null {
  if (url === undefined) return current.url;
  if (url !== null && current.url !== null && url === presentUrl(current.channel, current.url)) return current.url;
  return url;
}

function mergeCredentials(current: Credentials | null, given: Credentials | null | undefined): Credentials | null {
  if (given === undefined) return current;
  if (given === null) return null;
  const merged: Record<string, unknown> = { ...given };
  for (const name of SECRET_CREDENTIALS) {
    const stored = current?.[name];
    if (typeof stored === 'string' && merged[name] === abbreviateSecret(stored)) merged[name] = stored;
  }
  return merged as Credentials;
}

async function validate(db: Queryable, workspaceId: string, fields: StoredFields, providers: ProviderOrigins): Promise<void> {
  if (!(CHANNELS as readonly string[]).includes(fields.channel)) {
    throw validationFailed([{ path: '/channel', message: `must be one of: ${CHANNELS.join(', ')} (sms is not supported)` }]);
  }
  const problems: ErrorDetail[] = [...scopeProblems(fields)];
  const ownerEmail = fields.channel === 'email' && fields.url === null ? await ownerEmailOf(db, workspaceId) : null;
  problems.push(...channelConfigProblems(fields, { providers, ownerEmail }));
  if (fields.scope === 'policies') {
    for (const id of await unknownPolicyIds(db, workspaceId, fields.policy_ids)) {
      const index = fields.policy_ids.indexOf(id);
      problems.push({ path: `/policy_ids/${index}`, message: `is not a policy of this workspace (${id})` });
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
    return [{ path: '/policy_ids', message: 'must list at least one policy when scope is policies' }];
  }
  return [];
}
