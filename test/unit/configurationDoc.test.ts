// docs/configuration.md is written by hand (the meanings are for people), and checked here
// against src/config.ts: every variable loadConfig reads is listed once, in the section of the
// group its field belongs to (`## Title (\`config.group\`)`), with the default loadConfig gives
// when the variable is unset; no variable is listed that loadConfig does not read; and the
// `@default` of each field's JSDoc says the same. Each problem is reported with what to write
// where, so that whoever adds a variable is told the row to add.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { projectRoot } from '../../src/paths.js';

const PAGE = 'docs/configuration.md';
const SOURCE = 'src/config.ts';
const TABLE_HEADER = '| Variable | Default | Meaning |\n|---|---|---|';

interface Field {
  readonly variable: string;
  /** The group's path in the loaded configuration: `config`, `config.http`, … */
  readonly group: string;
  readonly iface: string;
  readonly key: string;
  /** The JSDoc's `@default`, in words (see inWords); null when it has none. */
  readonly jsdocDefault: string | null;
}

interface Row {
  readonly variable: string;
  readonly group: string | null;
  readonly heading: string;
  readonly default: string;
  readonly meaning: string;
}

/** A default as the page writes it: without backticks and without a trailing "(…)" gloss. */
const plain = (text: string) =>
  text
    .replace(/`/g, '')
    .replace(/\s*\([^)]*\)\s*$/, '')
    .trim();

/** A JSDoc `@default` in the page's words: null → unset, '' → empty, false → 0, a list comma-joined, quotes off. */
function jsdocInWords(value: string): string {
  const v = plain(value.replace(/\s*\n\s*\*\s*/g, ' '));
  if (v === 'null') return 'unset';
  if (v === "''") return 'empty';
  if (v === 'false' || v === 'true') return v === 'true' ? '1' : '0';
  if (v.startsWith('[')) return v.replace(/[[\]\s']/g, '');
  return v.replace(/^'(.*)'$/, '$1');
}

/** A loaded default in the page's words; paths relative to DATA_DIR or the working directory, as a user writes them. */
function inWords(value: unknown, dataDir: string): string {
  if (value === null || value === undefined) return 'unset';
  if (value === '') return 'empty';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'string' && path.isAbsolute(value)) {
    if (value.startsWith(`${dataDir}${path.sep}`)) return `DATA_DIR/${path.relative(dataDir, value)}`;
    return `./${path.relative(process.cwd(), value)}`;
  }
  return String(value);
}

/** The fields of every interface reachable from `Config`, each with the variable its JSDoc names first, in the order Config lists them. */
function fieldsOf(source: string, readVariables: ReadonlySet<string>): { fields: Field[]; groups: { path: string; iface: string }[]; stray: string[] } {
  const bodies = new Map([...source.matchAll(/^export interface (\w+) \{\n([\s\S]*?)^\}/gm)].map((m) => [m[1]!, m[2]!]));
  const fields: Field[] = [];
  const groups: { path: string; iface: string }[] = [];
  const stray: string[] = [];
  const walk = (iface: string, group: string) => {
    const body = bodies.get(iface);
    if (body === undefined) return;
    groups.push({ path: group, iface });
    for (const m of body.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*readonly (\w+)\??:/g)) {
      const comment = m[1]!.replace(/^\s*\*?\s*/, '');
      const variable = /^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\b/.exec(comment)?.[1];
      if (variable === undefined || variable.length < 2) continue;
      if (!readVariables.has(variable)) {
        stray.push(`${SOURCE}: the JSDoc of ${iface}.${m[2]} names ${variable}, which loadConfig does not read: read it, or name the variable it reads.`);
        continue;
      }
      const jsdocDefault = /@default ((?:(?!\*\/)[\s\S])*?)\s*$/.exec(m[1]!)?.[1];
      fields.push({ variable, group, iface, key: m[2]!, jsdocDefault: jsdocDefault === undefined ? null : jsdocInWords(jsdocDefault) });
    }
    for (const m of body.matchAll(/readonly (\w+)\??: (\w+);/g)) if (m[2] !== iface && bodies.has(m[2]!)) walk(m[2]!, `${group}.${m[1]}`);
  };
  walk('Config', 'config');
  return { fields, groups, stray };
}

/** Rows `| \`VAR\` | default | meaning |` of every `## ` section, with the group its heading names. */
function rowsOf(page: string): Row[] {
  return page
    .split(/^(?=## )/m)
    .slice(1)
    .flatMap((section) => {
      const heading = section.slice(0, section.indexOf('\n')).trim();
      const group = /\(`(config(?:\.\w+)*)`\)\s*$/.exec(heading)?.[1] ?? null;
      return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \| (.*?) \|\s*$/gm)].map((m) => ({
        variable: m[1]!,
        group,
        heading,
        default: plain(m[2]!),
        meaning: m[3]!.trim(),
      }));
    });
}

/** The variables loadConfig reads: those it asks an empty environment for, and those named in read.*('…') calls (read only when another is set). */
function readVariablesOf(source: string): Set<string> {
  const asked = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_target, name) => {
      if (typeof name === 'string') asked.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  for (const m of source.matchAll(/read\.\w+\(\s*'([A-Z][A-Z0-9_]+)'/g)) asked.add(m[1]!);
  return asked;
}

const headingFor = (group: string) =>
  `## ${group === 'config' ? 'Process' : group.slice(group.lastIndexOf('.') + 1).replace(/^./, (c) => c.toUpperCase())} (\`${group}\`)`;

/** Every disagreement between the page and src/config.ts, each saying what to change where. */
function problemsOf(page: string, source: string): string[] {
  const read = readVariablesOf(source);
  const { fields, groups, stray } = fieldsOf(source, read);
  const rows = rowsOf(page);
  const defaults = loadConfig({}) as unknown as Record<string, unknown>;
  const dataDir = defaults.dataDir as string;
  const valueAt = (field: Field) =>
    [...field.group.split('.').slice(1), field.key].reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], defaults);
  const sections = new Map<string, string>();
  for (const row of rows) if (row.group !== null) sections.set(row.group, row.heading);
  for (const m of page.matchAll(/^(## .*\(`(config(?:\.\w+)*)`\))\s*$/gm)) sections.set(m[2]!, m[1]!);
  const problems: string[] = [...stray];

  for (const variable of [...read].sort()) {
    const field = fields.find((f) => f.variable === variable);
    if (field === undefined) {
      problems.push(
        `${SOURCE}: loadConfig reads ${variable}, but no field of an interface under Config names it: begin the JSDoc of the field it fills with it, e.g. /** ${variable}: what it does. @default … */`,
      );
      continue;
    }
    const loaded = inWords(valueAt(field), dataDir);
    const listed = rows.filter((r) => r.variable === variable);
    const heading = sections.get(field.group);
    const row = `| \`${variable}\` | ${loaded === 'unset' || loaded === 'empty' ? loaded : `\`${loaded}\``} | <what it does, for a user> |`;
    if (listed.length === 0) {
      if (heading !== undefined)
        problems.push(`${PAGE} does not list ${variable} (${field.iface}.${field.key}): add this row to the table under "${heading}":\n    ${row}`);
      else {
        const before = groups
          .slice(
            0,
            groups.findIndex((g) => g.path === field.group),
          )
          .findLast((g) => sections.has(g.path));
        problems.push(
          `${PAGE} has no section for ${field.group} (${field.iface}), where ${variable} belongs: add, ${before === undefined ? 'first' : `after the section "${sections.get(before.path)}"`},\n    ${headingFor(field.group)}\n\n    ${TABLE_HEADER.replace('\n', '\n    ')}\n    ${row}`,
        );
      }
      continue;
    }
    if (listed.length > 1)
      problems.push(
        `${PAGE} lists ${variable} ${listed.length} times (${listed.map((r) => `"${r.heading}"`).join(', ')}): keep one row, under "${heading ?? headingFor(field.group)}".`,
      );
    const [first] = listed;
    if (first!.group !== field.group) {
      problems.push(
        `${PAGE} lists ${variable} under "${first!.heading}", but ${SOURCE} reads it into ${field.group} (${field.iface}): move its row to "${heading ?? headingFor(field.group)}".`,
      );
    }
    if (first!.default !== loaded) {
      problems.push(
        `${PAGE} gives ${variable} the default "${first!.default}", but loadConfig gives "${loaded}" when it is unset: write ${loaded === 'unset' || loaded === 'empty' ? loaded : `\`${loaded}\``} in its Default cell (a gloss in parentheses may follow, e.g. \`1073741824\` (1 GiB)).`,
      );
    }
    if (field.jsdocDefault !== null && field.jsdocDefault !== loaded) {
      problems.push(
        `${SOURCE}: the JSDoc of ${field.iface}.${field.key} says @default ${field.jsdocDefault}, but loadConfig gives "${loaded}": make them agree.`,
      );
    }
    if (first!.meaning === '') problems.push(`${PAGE}: the row of ${variable} says nothing in its Meaning cell: say what it does, for a user.`);
  }
  for (const row of rows) {
    if (!read.has(row.variable))
      problems.push(`${PAGE} lists ${row.variable} under "${row.heading}", but loadConfig does not read it: remove its row (or read it in ${SOURCE}).`);
  }
  const order = groups.map((g) => g.path).filter((p) => sections.has(p));
  const onPage = [...page.matchAll(/^## .*\(`(config(?:\.\w+)*)`\)\s*$/gm)].map((m) => m[1]!);
  if (onPage.join() !== order.join())
    problems.push(`${PAGE}: the sections run ${onPage.join(', ')}; put them in the order Config lists its groups: ${order.join(', ')}.`);
  return problems;
}

describe('docs/configuration.md against src/config.ts', () => {
  const page = readFileSync(path.join(projectRoot, PAGE), 'utf8');
  const source = readFileSync(path.join(projectRoot, SOURCE), 'utf8');

  it('lists every variable loadConfig reads, once, in its group, with the default it gives, and nothing else', () => {
    expect(readVariablesOf(source).size, 'variables found in loadConfig').to.be.greaterThan(40);
    expect(rowsOf(page).length, `rows found in ${PAGE}`).to.be.greaterThan(40);
    const problems = problemsOf(page, source);
    expect(problems, `\n${problems.join('\n')}\n`).to.deep.equal([]);
  });

  describe('tells what to change where', () => {
    it('a variable missing from the page: the row to add and the section it goes under', () => {
      const without = page.replace(/^\| `EVAL_GRACE_MS` .*\n/m, '');
      expect(problemsOf(without, source)).to.deep.equal([
        `${PAGE} does not list EVAL_GRACE_MS (EvaluationConfig.graceMs): add this row to the table under "## Evaluation (\`config.evaluation\`)":\n    | \`EVAL_GRACE_MS\` | \`5000\` | <what it does, for a user> |`,
      ]);
    });

    it('a variable of a group the page has no section for: the section to add, and where', () => {
      const without = page.replace(/^## Silences \(`config\.silences`\)\n\n[\s\S]*?(?=^## )/m, '');
      const [problem, ...rest] = problemsOf(without, source);
      expect(rest).to.deep.equal([]);
      expect(problem).to.equal(
        `${PAGE} has no section for config.silences (SilencesConfig), where WORKSPACE_MAX_SILENCES belongs: add, after the section "## Destinations (\`config.destinations\`)",\n    ## Silences (\`config.silences\`)\n\n    | Variable | Default | Meaning |\n    |---|---|---|\n    | \`WORKSPACE_MAX_SILENCES\` | \`1000\` | <what it does, for a user> |`,
      );
    });

    it('a variable listed that loadConfig does not read, one listed in the wrong group, a wrong default', () => {
      const changed = page
        .replace('| `EVAL_GRACE_MS` | `5000` |', '| `EVAL_GRACE_MS` | `4000` |')
        .replace(/^(\| `WORKSPACE_MAX_SILENCES` .*\n)/m, '$1| `WORKSPACE_MAX_POLICIES` | `10000` | Policies. |\n')
        .replace(/^\| `WORKSPACE_MAX_POLICIES` \| `10000` \| Policies a .*\n/m, '')
        .replace(/^(\| `EMAIL_FROM` .*\n)/m, '$1| `SMTP_PASSWORD` | unset | Never read. |\n');
      expect(problemsOf(changed, source)).to.deep.equal([
        `${PAGE} gives EVAL_GRACE_MS the default "4000", but loadConfig gives "5000" when it is unset: write \`5000\` in its Default cell (a gloss in parentheses may follow, e.g. \`1073741824\` (1 GiB)).`,
        `${PAGE} lists WORKSPACE_MAX_POLICIES under "## Silences (\`config.silences\`)", but ${SOURCE} reads it into config.policies (PoliciesConfig): move its row to "## Policies (\`config.policies\`)".`,
        `${PAGE} lists SMTP_PASSWORD under "## Channels (\`config.channels\`)", but loadConfig does not read it: remove its row (or read it in ${SOURCE}).`,
      ]);
    });

    it('a variable loadConfig reads that no field names, and a JSDoc default that disagrees with the code', () => {
      const changed = source
        .replace("read.integer('EVAL_GRACE_MS', 5_000,", "read.integer('EVAL_GRACE_MS', read.integer('EVAL_GRACE_EXTRA_MS', 0, 0, 1) + 5_000,")
        .replace('EVAL_INTERVAL_MS: how often the worker evaluates every enabled policy. @default 15000', 'EVAL_INTERVAL_MS: how often. @default 10000');
      expect(problemsOf(page, changed)).to.deep.equal([
        `${SOURCE}: loadConfig reads EVAL_GRACE_EXTRA_MS, but no field of an interface under Config names it: begin the JSDoc of the field it fills with it, e.g. /** EVAL_GRACE_EXTRA_MS: what it does. @default … */`,
        `${SOURCE}: the JSDoc of EvaluationConfig.intervalMs says @default 10000, but loadConfig gives "15000": make them agree.`,
      ]);
    });
  });
});
