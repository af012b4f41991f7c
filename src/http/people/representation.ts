import type { Person } from '../../oncall/model.js';

/** A person as the API shows them. */
export function personJson(p: Person) {
  return {
    person_id: p.person_id,
    key: p.key,
    name: p.name,
    timezone: p.timezone,
    destination_ids: [...p.destination_ids],
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
}
