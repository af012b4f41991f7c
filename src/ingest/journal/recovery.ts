// Opening the journal scans every segment from the checkpoint on. Part of a frame at the very
// end of the newest segment is a torn write of a crash: nobody was answered for it, and it is
// cut off. Damage anywhere else, and a complete frame at the end whose checksum fails (it was
// written whole, so maybe acknowledged), is reported loudly (error log, metric, the bytes
// kept under damaged/), and the valid frames after it are kept.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import type { FrameEntry } from './frameIndex.js';
import { isTornWrite, scanFrames } from './frames.js';
import { segmentName, segmentPath } from './segmentFiles.js';

/** What a frame's payload says of itself, read back at recovery. */
export interface FrameSummary {
  readonly records: number;
  readonly journaledAt: number;
}

export interface RecoveryContext {
  readonly dir: string;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Reads a recovered frame's payload. */
  readonly summarise: (payload: Buffer) => FrameSummary;
}

/** The valid frames of a segment from `from` on, once its damage is dealt with; `newest` when no segment follows it. */
export async function recoverSegment(context: RecoveryContext, segment: number, from: number, newest: boolean): Promise<FrameEntry[]> {
  const { dir, logger, metrics } = context;
  const file = segmentPath(dir, segment);
  const bytes = (await fs.readFile(file)).subarray(from);
  const { frames, damage } = scanFrames(bytes, from);
  for (const d of damage) {
    const size = d.end - d.offset;
    if (newest && d.end === from + bytes.length && isTornWrite(bytes.subarray(d.offset - from))) {
      logger.warn('journal: cut off a torn write at the end of the newest segment (never acknowledged)', { segment, offset: d.offset, bytes: size });
      await fs.truncate(file, d.offset);
      continue;
    }
    const kept = path.join(dir, 'damaged', `${segmentName(segment)}.${d.offset}-${d.end}`);
    await fs.mkdir(path.dirname(kept), { recursive: true });
    await fs.writeFile(kept, bytes.subarray(d.offset - from, d.end - from));
    metrics.journalDamagedBytes.inc(size);
    logger.error('journal: DAMAGED DATA in the journal; its records cannot be replayed (the bytes are kept)', { segment, offset: d.offset, bytes: size, kept });
  }
  return frames.map((f) => {
    const { records, journaledAt } = context.summarise(f.payload);
    return { segment, offset: f.offset, end: f.end, records, journaledAt };
  });
}
