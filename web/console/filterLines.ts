// A fleet policy's filter (a JSON object of key → value or values in the API) as the lines a
// person writes in its form: one condition a line, several values joined by "or".

/** A fleet policy's filter as lines a person writes: `code = 500`, `region = eu or us`. */
export function filterLines(json: string): string {
  if (json.trim() === '') return '';
  try {
    const filter = JSON.parse(json) as Record<string, string | string[]>;
    return Object.entries(filter)
      .map(([key, v]) => `${key} = ${(Array.isArray(v) ? v : [v]).join(' or ')}`)
      .join('\n');
  } catch {
    return json;
  }
}

/** The filter of `lines` as the API's JSON text; a line without " = " is sent as written, for the API to name. */
export function filterJson(lines: string): string {
  const filter: Record<string, string[]> = {};
  for (const line of lines.split('\n')) {
    if (line.trim() === '') continue;
    const at = line.indexOf('=');
    if (at <= 0) return lines;
    const key = line.slice(0, at).trim();
    filter[key] = [
      ...(filter[key] ?? []),
      ...line
        .slice(at + 1)
        .split(/\s+or\s+/)
        .map((v) => v.trim()),
    ];
  }
  const entries = Object.entries(filter).map(([k, v]) => [k, v.length === 1 ? v[0]! : v] as const);
  return entries.length === 0 ? '' : JSON.stringify(Object.fromEntries(entries));
}
