// Shared set-up of the on-call tests: people reached through a webhook destination, and schedules.
import type { TestService } from '../../helpers/service.js';

export async function createDestination(svc: TestService, token: string): Promise<string> {
  const res = await svc.request('POST', '/v1.0/destinations', { token, body: { channel: 'webhook', url: 'https://example.com/oncall-hook' } });
  if (res.status !== 201) throw new Error(`destination: ${res.status} ${res.text}`);
  return res.body.destination_id;
}

export async function createPerson(svc: TestService, token: string, name: string, destinationId: string): Promise<string> {
  const res = await svc.request('POST', '/v1.0/people', { token, body: { name, destination_ids: [destinationId] } });
  if (res.status !== 201) throw new Error(`person: ${res.status} ${res.text}`);
  return res.body.person_id;
}

/** A schedule of one daily layer handing off at 09:00 in `timezone`, anchored at `start`. */
export function dailySchedule(members: string[], start: string, timezone = 'UTC') {
  return { name: 'Database', timezone, layers: [{ name: 'primary', start, rotation: { type: 'daily', handoff: '09:00' }, members }] };
}

export async function createSchedule(svc: TestService, token: string, body: unknown): Promise<{ schedule_id: string; ical_token: string }> {
  const res = await svc.request('POST', '/v1.0/schedules', { token, body });
  if (res.status !== 201) throw new Error(`schedule: ${res.status} ${res.text}`);
  return res.body;
}
