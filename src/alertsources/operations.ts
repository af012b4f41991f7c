// What can be done with alert sources, by an HTTP route or a worker alike. Every function
// takes the workspace: another workspace's alert source or escalation policy is simply not found.
import { conflict, notFound } from '../errors.js';
import { escalationPolicyExists } from '../escalation/store.js';
import type { PageOrAll } from '../page.js';
import type { PostgresStore, Queryable } from '../stores/postgres.js';
import { parseInhibitRules, type InhibitRuleInput } from './inhibitRules.js';
import { ALERT_SOURCE_DEFAULTS, ALERT_SOURCE_LIMITS, type AlertSource, type AlertSourceFields } from './model.js';
import { deleteAlertSourceRow, findAlertSource, insertAlertSource, listAlertSourceRows, lockAndCountAlertSources, updateAlertSourceRow } from './store.js';

/** The fields as a client writes them: inhibition rules as matcher texts. */
export type AlertSourceInput = Omit<AlertSourceFields, 'inhibit_rules'> & { readonly inhibit_rules: readonly InhibitRuleInput[] };

/** A create request: the name, and any of the fields with a default. */
export type NewAlertSource = Pick<AlertSourceInput, 'name'> & Partial<AlertSourceInput>;

/**
 * What the alerts domain does when a source goes, in the transaction that deletes it (its
 * open alerts are resolved): the service passes it in, so this domain needs no alerts.
 */
export type AlertSourceDeletion = (tx: Queryable, source: AlertSource) => Promise<void>;

/** 404 when the escalation policy is not the workspace's (null names none). */
async function requireEscalationPolicy(db: Queryable, workspaceId: string, id: string | null): Promise<void> {
  if (id !== null && !(await escalationPolicyExists(db, workspaceId, id))) throw notFound('escalation policy');
}

type Scalars = Omit<AlertSourceFields, 'inhibit_rules'>;

/** The fields `changes` gives, over `base` (what a create defaults to, or what a source holds). */
function merged(base: Scalars, changes: Partial<Scalars>): Scalars {
  const given = <K extends keyof Scalars>(key: K): Scalars[K] => (changes[key] === undefined ? base[key] : changes[key]!);
  const escalation = given('escalation_policy_id');
  return {
    name: given('name'),
    severity_label: given('severity_label'),
    default_severity: given('default_severity'),
    escalation_policy_id: escalation === null ? null : escalation.toLowerCase(),
    renotify_minutes: given('renotify_minutes'),
    resolve_timeout_minutes: given('resolve_timeout_minutes'),
  };
}

export async function createAlertSource(db: PostgresStore, workspaceId: string, input: NewAlertSource): Promise<AlertSource> {
  // Parsed (and every regex compiled) before the transaction: PGlite is one connection.
  const fields: AlertSourceFields = {
    ...merged({ ...ALERT_SOURCE_DEFAULTS, name: input.name }, input),
    inhibit_rules: parseInhibitRules(input.inhibit_rules ?? []),
  };
  return db.transaction(async (tx) => {
    await requireEscalationPolicy(tx, workspaceId, fields.escalation_policy_id);
    const max = ALERT_SOURCE_LIMITS.perWorkspace;
    if ((await lockAndCountAlertSources(tx, workspaceId)) >= max) {
      throw conflict('alert_source_limit_reached', `The workspace has reached its limit of ${max} alert sources; delete sources it no longer needs.`);
    }
    return insertAlertSource(tx, workspaceId, fields);
  });
}

export async function getAlertSource(db: Queryable, workspaceId: string, id: string): Promise<AlertSource> {
  const found = await findAlertSource(db, workspaceId, id);
  if (!found) throw notFound('alert source');
  return found;
}

/** Newest first: without a limit, every alert source of the workspace. */
export function listAlertSources(db: Queryable, workspaceId: string, page: PageOrAll): Promise<AlertSource[]> {
  return listAlertSourceRows(db, workspaceId, page);
}

/** Applies any subset of the fields; what is not given stays as it is. */
export async function updateAlertSource(db: PostgresStore, workspaceId: string, id: string, changes: Partial<AlertSourceInput>): Promise<AlertSource> {
  const rules = changes.inhibit_rules === undefined ? undefined : parseInhibitRules(changes.inhibit_rules);
  return db.transaction(async (tx) => {
    const current = await findAlertSource(tx, workspaceId, id, true);
    if (!current) throw notFound('alert source');
    const fields: AlertSourceFields = { ...merged(current, changes), inhibit_rules: rules ?? current.inhibit_rules };
    if (fields.escalation_policy_id !== current.escalation_policy_id) await requireEscalationPolicy(tx, workspaceId, fields.escalation_policy_id);
    return updateAlertSourceRow(tx, workspaceId, id, fields);
  });
}

/** Deletes the source; `onDelete` (its open alerts resolved) runs in the same transaction, before the row goes. */
export async function deleteAlertSource(db: PostgresStore, workspaceId: string, id: string, onDelete?: AlertSourceDeletion): Promise<void> {
  await db.transaction(async (tx) => {
    const current = await findAlertSource(tx, workspaceId, id, true);
    if (!current) throw notFound('alert source');
    await onDelete?.(tx, current);
    await deleteAlertSourceRow(tx, workspaceId, id);
  });
}
