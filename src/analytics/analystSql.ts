// The analysts' SQL (POST /v1.0/admin/sql, `npm run sql`): exactly one SELECT (WITH … SELECT,
// UNION …) or an EXPLAIN of one, over this service's database only, with no table functions
// and nothing that reaches files, URLs, dictionaries or other databases.
//
// ClickHouse's own parser decides what the query is, never a regular expression over its
// text: formatQuerySingleLine (the query bound as a parameter) refuses several statements
// and gives the one statement back in canonical form; EXPLAIN AST of that form is walked; and
// the canonical form, the text that was checked, is what runs, on a readonly=1 session (and
// with a ClickHouse server, as a user allowed only SELECT on this database).
import { ANALYST_LIMITS, AnalystBusyError, type AnalystStatement, type ClickHouseStore } from '../stores/clickhouse.js';
import { busy, invalid } from '../errors.js';
import { classifyClickHouseError } from '../stores/clickhouseErrors.js';

export type AnalystRow = Record<string, unknown>;

/** One line of EXPLAIN AST: its depth, node type and the text after the type. */
interface AstLine {
  readonly depth: number;
  readonly type: string;
  readonly text: string;
}

// Scalar functions that read outside the query's tables: host files, dictionaries and Join
// tables named by a string (any database), other tables' schemas, server configuration.
const REFUSED_FUNCTIONS = new Set([
  'file',
  'catboostevaluate',
  'joinget',
  'joingetornull',
  'hascolumnintable',
  'getmacro',
  'getserversetting',
  'getmergetreesetting',
  'filesystemavailable',
  'filesystemcapacity',
  'filesystemunreserved',
]);
const isDictionaryFunction = (name: string) => name.startsWith('dict');

export interface AstContext {
  /** This service's database: the only one a query may read. */
  readonly database: string;
  /** Every database the engine knows (system, INFORMATION_SCHEMA, …). */
  readonly databases: ReadonlySet<string>;
  /** Names of ClickHouse's table functions, lower case (file, url, remote, s3, …). */
  readonly tableFunctions: ReadonlySet<string>;
}

export function parseAstLines(rows: readonly string[]): AstLine[] {
  return rows.map((row) => {
    const depth = row.length - row.trimStart().length;
    const body = row.slice(depth);
    const space = body.indexOf(' ');
    return space === -1 ? { depth, type: body, text: '' } : { depth, type: body.slice(0, space), text: body.slice(space + 1) };
  });
}

/** A node's name: its text before any " (alias …)" or " (children N)". */
function nameOf(line: AstLine): string {
  const cut = line.text.indexOf(' (');
  return cut === -1 ? line.text : line.text.slice(0, cut);
}

const childrenOf = (line: AstLine) => Number(/\(children (\d+)\)$/.exec(line.text)?.[1] ?? 0);

/**
 * Why the query (as its EXPLAIN AST lines) is not allowed, or null when it is.
 *
 * A name may hold a line break, which splits its node over two lines of the output; every
 * rule therefore reads only what starts a line (the node type and the first name after it),
 * which no name can forge, or the first lines, which hold no name.
 */
export function refusalOf(lines: readonly AstLine[], context: AstContext): string | null {
  const root = lines[0];
  if (root === undefined) return 'The query is empty.';
  let union = 0;
  if (root.type === 'Explain') {
    union = lines[1]?.type === 'Set' ? 2 : 1;
    if (childrenOf(root) !== union) return 'EXPLAIN takes one SELECT, without FORMAT or INTO OUTFILE.';
  }
  const select = lines[union];
  if (select?.type !== 'SelectWithUnionQuery' || select.depth !== Math.min(union, 1)) {
    return 'Only one SELECT query (or an EXPLAIN of one) is allowed.';
  }
  // FORMAT, INTO OUTFILE and the like are children of the outermost SELECT besides its list.
  if (childrenOf(select) !== 1) return 'FORMAT, INTO OUTFILE and SETTINGS after the query are not allowed; the rows come back as JSON.';

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const name = nameOf(line);
    if (line.type === 'TableExpression') {
      const source = lines[i + 1];
      if (source?.type !== 'TableIdentifier' && source?.type !== 'Subquery') {
        return `Table functions are not allowed (${source ? nameOf(source) : 'unknown'}); read the tables of database ${context.database}.`;
      }
    } else if (line.type === 'Function') {
      const fn = name.split(' ')[0]!.toLowerCase();
      if (context.tableFunctions.has(fn) && fn !== 'format') return `Table functions are not allowed (${fn}).`;
      if (REFUSED_FUNCTIONS.has(fn) || isDictionaryFunction(fn)) return `The function ${fn} is not allowed in analyst queries.`;
    } else if (line.type === 'TableIdentifier') {
      const dot = name.indexOf('.');
      if (dot !== -1 && (name.slice(0, dot) !== context.database || name.indexOf('.', dot + 1) !== -1)) {
        return `Only the tables of database ${context.database} can be read (not ${name}).`;
      }
    } else if (line.type === 'Identifier') {
      // `x IN system.tables` reads a table through a plain identifier.
      const dot = name.indexOf('.');
      const prefix = dot === -1 ? null : name.slice(0, dot);
      if (prefix !== null && prefix !== context.database && context.databases.has(prefix)) {
        return `Only the tables of database ${context.database} can be read (not ${name}).`;
      }
    }
  }
  return null;
}

/**
 * The engine facts the check needs, read with the service's own session: a restricted
 * analyst user may not see every database, but the check must know them all.
 */
async function astContext(clickhouse: ClickHouseStore): Promise<AstContext> {
  const names = async (query: string) => {
    const result = await clickhouse.client.query({ query, format: 'JSONEachRow' });
    return new Set((await result.json<{ name: string }>()).map((r) => r.name));
  };
  const [databases, tableFunctions] = await Promise.all([
    names('SELECT name FROM system.databases'),
    names('SELECT lower(name) AS name FROM system.table_functions'),
  ]);
  return { database: clickhouse.database, databases, tableFunctions };
}

function engineMessage(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]!.trim() : String(err);
}

const mebibytes = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MiB`;

/** The 400 for a query the engine stopped or refused, its bounds named in words. */
function queryFailure(err: unknown, clickhouse: ClickHouseStore): Error {
  const message = engineMessage(err);
  const kind = classifyClickHouseError(err);
  if (kind === 'memory_limit') {
    return invalid(
      'sql_memory_limit',
      `The query needs more than ${mebibytes(clickhouse.analystLimits.maxMemoryBytes)} of memory (the limit of one analyst query) and was stopped; ` +
        `aggregate earlier, read fewer rows or columns, or add a LIMIT. Engine: ${message}`,
    );
  }
  if (kind === 'timeout') {
    return invalid('sql_timeout', `The query ran longer than ${ANALYST_LIMITS.maxExecutionSeconds} s and was stopped. Engine: ${message}`);
  }
  return invalid('sql_error', message);
}

/**
 * Checks an analyst's query and runs it, in one analyst turn (a session of its own); refused
 * or failing queries throw `invalid`, and `busy` (429 analyst_busy) when every turn runs and
 * the queue is full.
 */
export async function runAnalystQuery(clickhouse: ClickHouseStore, sql: string): Promise<AnalystRow[]> {
  try {
    return await clickhouse.analystTurn((query) => checkAndRun(clickhouse, query, sql));
  } catch (err) {
    if (!(err instanceof AnalystBusyError)) throw err;
    throw busy(
      'analyst_busy',
      `${err.running} analyst queries are running and as many again wait (ANALYST_MAX_CONCURRENT_QUERIES); nothing was run. Retry after the given delay.`,
      Math.ceil(ANALYST_LIMITS.maxExecutionSeconds / 3),
    );
  }
}

async function checkAndRun(clickhouse: ClickHouseStore, query: AnalystStatement, sql: string): Promise<AnalystRow[]> {
  let canonical: string;
  let lines: AstLine[];
  try {
    const [formatted] = await query('SELECT formatQuerySingleLine({q:String}) AS q', { q: sql });
    canonical = String(formatted!.q);
    const ast = await query(`EXPLAIN AST ${canonical}`);
    lines = parseAstLines(ast.map((r) => String(r.explain)));
  } catch (err) {
    throw invalid('sql_error', engineMessage(err));
  }
  const refusal = refusalOf(lines, await astContext(clickhouse));
  if (refusal !== null) throw invalid('sql_not_allowed', refusal);
  let rows: AnalystRow[];
  try {
    rows = await query(canonical);
  } catch (err) {
    throw queryFailure(err, clickhouse);
  }
  // max_result_rows is checked per block: a result made in one block (arrayJoin) slips past.
  if (rows.length > ANALYST_LIMITS.maxResultRows) {
    throw invalid('sql_error', `The result has more than ${ANALYST_LIMITS.maxResultRows} rows; add a LIMIT or aggregate.`);
  }
  return rows;
}
