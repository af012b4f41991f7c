// The shape of a JSON answer, keys and types all the way down but no values, and the
// differences between two shapes: for comparing alertmon's Alertmanager API and webhook v4
// bodies with what the real Alertmanager answers and sends to the same requests, where values
// (ids, times, fingerprints) must differ.
//
// A shape is "string" | "number" | "boolean" | "null"; an array's is [its elements' shape]
// ([] when empty: any elements); an object's is {key: shape}; a map's (an object whose keys
// are data, such as `labels`) is {"*": its values' shape} ({"*": "nothing"} when empty: any
// values); values of several shapes are
// {"anyOf": [shapes]}, and a key that only some elements of an array have includes "absent".
import { readFileSync, writeFileSync } from 'node:fs';

export type Shape = string | Shape[] | { readonly [key: string]: Shape };

/** Properties whose values are maps in Alertmanager's answers and webhook bodies. */
export const ALERTMANAGER_MAPS = ['labels', 'annotations', 'groupLabels', 'commonLabels', 'commonAnnotations'] as const;

/** The values of an empty map: any shape. */
const NOTHING = 'nothing';

const isObject = (s: Shape): s is { readonly [key: string]: Shape } => typeof s === 'object' && !Array.isArray(s);
const alternatives = (s: Shape): Shape[] => (isObject(s) && Array.isArray(s.anyOf) ? (s.anyOf as Shape[]) : [s]);

function union(shapes: readonly Shape[]): Shape {
  const seen = new Map<string, Shape>();
  for (const s of shapes.flatMap(alternatives)) seen.set(JSON.stringify(s), s);
  const all = [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, s]) => s);
  return all.length === 1 ? all[0]! : { anyOf: all };
}

/** One shape for two values' shapes: objects by the union of their keys, arrays by their elements. */
export function mergeShapes(a: Shape, b: Shape): Shape {
  if (JSON.stringify(a) === JSON.stringify(b) || b === NOTHING) return a;
  if (a === NOTHING) return b;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length === 0 || b.length === 0) return a.length === 0 ? b : a;
    return [mergeShapes(a[0]!, b[0]!)];
  }
  if (isObject(a) && isObject(b) && a.anyOf === undefined && b.anyOf === undefined) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return Object.fromEntries(keys.map((k) => [k, mergeShapes(a[k] ?? 'absent', b[k] ?? 'absent')]));
  }
  return union([a, b]);
}

/** The shape of a JSON value; properties named in `maps` are maps. */
export function shapeOf(value: unknown, maps: readonly string[] = ALERTMANAGER_MAPS): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const elements = value.map((v) => shapeOf(v, maps));
    return elements.length === 0 ? [] : [elements.reduce(mergeShapes)];
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return Object.fromEntries(
      entries.map(([k, v]) => {
        if (!maps.includes(k) || v === null || typeof v !== 'object' || Array.isArray(v)) return [k, shapeOf(v, maps)];
        const values = Object.values(v as Record<string, unknown>).map((x) => shapeOf(x, maps));
        return [k, { '*': values.length === 0 ? NOTHING : values.reduce(mergeShapes) }];
      }),
    );
  }
  return typeof value;
}

/** Where `actual` differs from `reference`: keys missing or extra, types that differ ("" when none). */
export function shapeDifferences(reference: Shape, actual: Shape, path = ''): string[] {
  if (JSON.stringify(reference) === JSON.stringify(actual) || reference === NOTHING || actual === NOTHING) return [];
  const [allowed, given] = [alternatives(reference), alternatives(actual)];
  if (allowed.length > 1 || given.length > 1) {
    // Each shape the answer has must be one the reference allows (a reference may allow more).
    const unexpected = given.filter((g) => !allowed.some((a) => shapeDifferences(a, g, path).length === 0));
    return unexpected.map((g) => `${path || '/'}: ${JSON.stringify(g)} where the reference has ${JSON.stringify(reference)}`);
  }
  if (Array.isArray(reference) && Array.isArray(actual)) {
    // An empty array says nothing about its elements.
    if (reference.length === 0 || actual.length === 0) return [];
    return shapeDifferences(reference[0]!, actual[0]!, `${path}/*`);
  }
  if (isObject(reference) && isObject(actual) && reference.anyOf === undefined && actual.anyOf === undefined) {
    const keys = [...new Set([...Object.keys(reference), ...Object.keys(actual)])].sort();
    return keys.flatMap((k) => {
      if (!(k in actual)) {
        return alternatives(reference[k]!).includes('absent') ? [] : [`${path}/${k}: missing (the reference has ${JSON.stringify(reference[k])})`];
      }
      if (!(k in reference)) return [`${path}/${k}: not in the reference (${JSON.stringify(actual[k])})`];
      return shapeDifferences(reference[k]!, actual[k]!, `${path}/${k}`);
    });
  }
  return [`${path || '/'}: ${JSON.stringify(actual)} where the reference has ${JSON.stringify(reference)}`];
}

/** A recorded shape (test/fixtures/…); with RECORD_SHAPES=1 it is (re)written from `actual` first. */
export function recordedShape(file: string, actual: Shape): Shape {
  if (process.env.RECORD_SHAPES === '1') writeFileSync(file, `${JSON.stringify(actual, null, 2)}\n`);
  return JSON.parse(readFileSync(file, 'utf8')) as Shape;
}
