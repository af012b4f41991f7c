// The journal's framing: each frame is a 12-byte header (magic, payload length, CRC-32 of
// the payload) and the payload. A frame is valid only when all three agree, so a scan can
// tell a torn write (the file ends inside a frame, or with bytes that are no frame) from
// good data, and can find the next good frame after a damaged stretch.
import { crc32 } from 'node:zlib';

export const FRAME_MAGIC = 0x414d4a31; // "AMJ1"
export const HEADER_BYTES = 12;
/**
 * The largest payload a frame may hold: a scan takes no frame beyond it (so a damaged length
 * field cannot make it swallow the rest of a segment).
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;
/**
 * The largest payload an append writes into one frame: a request whose payload is larger is
 * split into several frames (journaledBatch.ts, splitPayload), each far below MAX_PAYLOAD_BYTES,
 * so that every frame appended can be read back. 1 MiB: the work a frame costs the event loop
 * at once (its checksum, its copy, its insert rows) stays within a few milliseconds.
 */
export const MAX_APPEND_PAYLOAD_BYTES = 1024 * 1024;

/** A payload larger than a frame can hold: refused before anything is appended. */
export class FrameTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly max: number,
  ) {
    super(`a journal frame of ${bytes} bytes, beyond its bound of ${max}`);
    this.name = 'FrameTooLargeError';
  }
}

/** The frame of a payload given in parts, one after another (an array, never spread: a request may have 100,000s). */
export function encodeFrame(parts: readonly Uint8Array[]): Buffer {
  let length = 0;
  for (const part of parts) length += part.length;
  if (length > MAX_PAYLOAD_BYTES) throw new FrameTooLargeError(length, MAX_PAYLOAD_BYTES);
  // Its own memory (not Buffer's shared pool), so that it can move to the journal's writer thread.
  const frame = Buffer.allocUnsafeSlow(HEADER_BYTES + length);
  frame.writeUInt32BE(FRAME_MAGIC, 0);
  frame.writeUInt32BE(length, 4);
  let at = HEADER_BYTES;
  for (const part of parts) {
    frame.set(part, at);
    at += part.length;
  }
  frame.writeUInt32BE(crc32(frame.subarray(HEADER_BYTES)), 8);
  return frame;
}

export interface ScannedFrame {
  /** Offset of the frame's header in the scanned bytes. */
  readonly offset: number;
  /** Offset just past the frame. */
  readonly end: number;
  readonly payload: Buffer;
}

/** A stretch of bytes that holds no valid frame. */
export interface Damage {
  readonly offset: number;
  readonly end: number;
}

export interface ScanResult {
  readonly frames: ScannedFrame[];
  /** Damaged stretches, in order; one that reaches the end of the bytes is a torn tail. */
  readonly damage: Damage[];
}

/** The valid frame at `offset`, or null. */
export function frameAt(bytes: Buffer, offset: number): ScannedFrame | null {
  if (offset + HEADER_BYTES > bytes.length || bytes.readUInt32BE(offset) !== FRAME_MAGIC) return null;
  const length = bytes.readUInt32BE(offset + 4);
  const end = offset + HEADER_BYTES + length;
  if (length > MAX_PAYLOAD_BYTES || end > bytes.length) return null;
  const payload = bytes.subarray(offset + HEADER_BYTES, end);
  return crc32(payload) === bytes.readUInt32BE(offset + 8) ? { offset, end, payload } : null;
}

/** Every valid frame of `bytes` (a segment, or part of one starting at a frame), and the damage between them. */
export function scanFrames(bytes: Buffer, base = 0): ScanResult {
  const frames: ScannedFrame[] = [];
  const damage: Damage[] = [];
  let at = 0;
  while (at < bytes.length) {
    const frame = frameAt(bytes, at);
    if (frame) {
      frames.push({ offset: base + frame.offset, end: base + frame.end, payload: frame.payload });
      at = frame.end;
      continue;
    }
    // Resynchronise on the next header that starts a valid frame.
    let next = at + 1;
    for (;;) {
      next = bytes.indexOf(MAGIC_BYTES, next);
      if (next < 0 || frameAt(bytes, next)) break;
      next++;
    }
    const end = next < 0 ? bytes.length : next;
    damage.push({ offset: base + at, end: base + end });
    at = end;
  }
  return { frames, damage };
}

/**
 * Whether the damaged bytes at the very end of a segment are what an append cut short leaves:
 * a frame whose header is incomplete or whose payload runs past the end, or zeros. A complete
 * frame whose checksum fails is not: it was written whole, and changed since.
 */
export function isTornWrite(tail: Buffer): boolean {
  if (tail.length < HEADER_BYTES || tail.every((b) => b === 0)) return true;
  return tail.readUInt32BE(0) === FRAME_MAGIC && HEADER_BYTES + tail.readUInt32BE(4) > tail.length;
}

const MAGIC_BYTES = Buffer.from([0x41, 0x4d, 0x4a, 0x31]);
