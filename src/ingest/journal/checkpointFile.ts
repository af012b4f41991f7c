// The journal writer's checkpoint, written in place: the file holds two fixed slots, each a
// frame (frames.ts: magic, length, CRC-32) of the checkpoint and its sequence number, padded
// to a block. A write goes to the older slot and is fdatasynced, so after a crash one slot
// holds the last checkpoint and the other the one before it. The blocks are allocated (zeros
// written) when the file is made, so a checkpoint never needs new disk space: on a full disk
// the writer still records its progress, inserts the backlog and frees its segments (the old
// way, a temporary file renamed over checkpoint.json, failed there with ENOSPC).
import { constants, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { encodeFrame, scanFrames } from './frames.js';

/** Where the writer stands (journal.ts). */
export interface Checkpoint {
  /** Every frame before this position is in ClickHouse. */
  readonly done: { readonly segment: number; readonly offset: number };
  /** The block being inserted when the checkpoint was written. */
  readonly pending: { readonly segment: number; readonly from: number; readonly to: number } | null;
}

const FILE = 'checkpoint';
/** The file of earlier versions (one JSON document, replaced by rename): read once, then removed. */
const LEGACY_FILE = 'checkpoint.json';
const SLOT_BYTES = 4096;

/** The newest valid slot of the file's bytes. */
function newestSlot(bytes: Buffer): { seq: number; checkpoint: Checkpoint } | null {
  let newest: { seq: number; checkpoint: Checkpoint } | null = null;
  for (let slot = 0; slot < 2; slot++) {
    const frame = scanFrames(bytes.subarray(slot * SLOT_BYTES, (slot + 1) * SLOT_BYTES)).frames[0];
    if (frame?.offset !== 0) continue;
    const { seq, done, pending } = JSON.parse(frame.payload.toString('utf8')) as { seq: number } & Checkpoint;
    if (newest === null || seq > newest.seq) newest = { seq, checkpoint: { done, pending } };
  }
  return newest;
}

/** The last checkpoint written in `dir`, read synchronously (tests that inspect a journal folder). */
export function readCheckpointSync(dir: string): Checkpoint | null {
  try {
    return newestSlot(readFileSync(path.join(dir, FILE)))?.checkpoint ?? null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export class CheckpointFile {
  private constructor(
    private readonly handle: fs.FileHandle,
    private seq: number,
  ) {}

  /** Opens (or makes) the checkpoint file of `dir`, with the last checkpoint written there. */
  static async open(dir: string): Promise<{ file: CheckpointFile; checkpoint: Checkpoint | null }> {
    const file = path.join(dir, FILE);
    let bytes: Buffer | null = null;
    try {
      bytes = await fs.readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (bytes === null || bytes.length !== 2 * SLOT_BYTES) {
      await writeDurably(file, Buffer.alloc(2 * SLOT_BYTES));
      bytes = null;
    }
    let newest: { seq: number; checkpoint: Checkpoint } | null;
    try {
      newest = bytes === null ? null : newestSlot(bytes);
    } catch (err) {
      throw new Error(`the journal checkpoint in ${dir} cannot be read`, { cause: err });
    }
    const checkpointFile = new CheckpointFile(await fs.open(file, constants.O_RDWR), newest?.seq ?? 0);
    const legacy = newest === null ? await readLegacy(dir) : null;
    if (legacy !== null) await checkpointFile.write(legacy);
    await fs.rm(path.join(dir, LEGACY_FILE), { force: true });
    await fs.rm(path.join(dir, `${LEGACY_FILE}.tmp`), { force: true });
    return { file: checkpointFile, checkpoint: newest?.checkpoint ?? legacy };
  }

  /** Makes the checkpoint durable, in the slot that does not hold the last one. */
  async write(checkpoint: Checkpoint): Promise<void> {
    const seq = this.seq + 1;
    const frame = encodeFrame([Buffer.from(JSON.stringify({ seq, ...checkpoint }))]);
    if (frame.length > SLOT_BYTES) throw new Error('a journal checkpoint does not fit its slot');
    const slot = Buffer.alloc(SLOT_BYTES);
    frame.copy(slot);
    await this.handle.write(slot, 0, SLOT_BYTES, (seq % 2) * SLOT_BYTES);
    await this.handle.datasync();
    this.seq = seq;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

async function readLegacy(dir: string): Promise<Checkpoint | null> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, LEGACY_FILE), 'utf8')) as Checkpoint;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`the journal checkpoint in ${dir} cannot be read`, { cause: err });
  }
}

/** Writes a small file so that after a crash it holds either the old or the new content. */
export async function writeDurably(file: string, content: string | Buffer): Promise<void> {
  const temporary = `${file}.tmp`;
  const handle = await fs.open(temporary, 'w');
  try {
    await handle.writeFile(content);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, file);
  const folder = await fs.open(path.dirname(file), constants.O_RDONLY);
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
