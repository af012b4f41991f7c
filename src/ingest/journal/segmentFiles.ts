// The files of a journal folder: numbered segment files, and the id that tells this journal
// from any other.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeDurably } from './checkpointFile.js';

const SEGMENT_NAME = /^(\d{16})\.seg$/;
const ID_FILE = 'journal.id';

export const segmentName = (segment: number) => `${String(segment).padStart(16, '0')}.seg`;

export const segmentPath = (dir: string, segment: number) => path.join(dir, segmentName(segment));

/** The numbers of the segment files in `dir`, in order. */
export async function listSegments(dir: string): Promise<number[]> {
  return (await fs.readdir(dir))
    .map((name) => SEGMENT_NAME.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/** The journal's id, made (and kept in `dir`) the first time. */
export async function readOrCreateId(dir: string): Promise<string> {
  const file = path.join(dir, ID_FILE);
  try {
    const id = (await fs.readFile(file, 'utf8')).trim();
    if (/^[0-9a-f-]{36}$/.test(id)) return id;
    throw new Error(`${file} does not hold a journal id`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = randomUUID();
  await writeDurably(file, id);
  return id;
}
