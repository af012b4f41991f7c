// A label set: what an alert is about, as names and string values. A policy on one event
// definition labels its alerts with the agent; a fleet policy with its group's values; an
// alert a Prometheus sends with its own labels. Alerts, silences and inhibition match on
// them, messages and templates show them. The one type and the one fingerprint for all of them.

/** Label names to values; no order of its own (sortedLabels gives the canonical one). */
export type Labels = Readonly<Record<string, string>>;

export const NO_LABELS: Labels = Object.freeze({});

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The same labels with their names sorted (by UTF-16 code units, as JavaScript compares): how they are stored and shown. */
export function sortedLabels(labels: Labels): Labels {
  const names = Object.keys(labels).sort(byName);
  const sorted: Record<string, string> = {};
  for (const name of names) sorted[name] = labels[name]!;
  return sorted;
}

// FNV-1a, 64 bits, as Prometheus' model.LabelSet.Fingerprint computes it: so an alert that a
// Prometheus sends keeps the fingerprint an Alertmanager would show for it. The 64-bit state is
// four 16-bit limbs (lowest first) in plain numbers, which a fleet's 100,000 group keys a cycle
// can afford (BigInt steps cost about 50 times as much).
const FNV_OFFSET = [0x2325, 0x8422, 0x9ce4, 0xcbf2];
const SEPARATOR = 0xff;
const utf8 = new TextEncoder();

/** h ← (h ^ byte) × 0x100000001b3 mod 2^64, for each byte: × 0x1b3, plus h shifted left by 40 bits. */
function fnvAdd(h: number[], bytes: Uint8Array): void {
  let [h0, h1, h2, h3] = h as [number, number, number, number];
  for (const byte of bytes) {
    h0 ^= byte;
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (t1 >>> 16) + ((h0 & 0xff) << 8);
    const t3 = h3 * 0x1b3 + (t2 >>> 16) + (h0 >>> 8) + ((h1 & 0xff) << 8);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  h[0] = h0;
  h[1] = h1;
  h[2] = h2;
  h[3] = h3;
}

/**
 * The label set's fingerprint: 16 hex digits of FNV-1a 64 over each name and value (names in
 * byte order), each followed by the byte 0xff. Equal label sets, in whatever order, have the
 * same fingerprint; it is Prometheus' and Alertmanager's.
 */
export function labelsFingerprint(labels: Labels): string {
  const names = Object.keys(labels).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const hash = [...FNV_OFFSET];
  const separator = Uint8Array.of(SEPARATOR);
  for (const name of names) {
    fnvAdd(hash, utf8.encode(name));
    fnvAdd(hash, separator);
    fnvAdd(hash, utf8.encode(labels[name]!));
    fnvAdd(hash, separator);
  }
  return hash
    .reverse()
    .map((limb) => limb.toString(16).padStart(4, '0'))
    .join('');
}

/** `route="/checkout", code="500"`: the labels as a person reads them, names sorted; '' for none. */
export function labelsText(labels: Labels, leaveOut: readonly string[] = []): string {
  return Object.keys(labels)
    .filter((name) => !leaveOut.includes(name))
    .sort(byName)
    .map((name) => `${name}=${JSON.stringify(labels[name])}`)
    .join(', ');
}
