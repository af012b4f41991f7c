import { v7 as uuidv7 } from 'uuid';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Time-ordered ids: they sort by creation and index well. */
export function newId(): string {
  return uuidv7();
}
