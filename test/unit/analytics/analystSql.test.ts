// The rules of the analyst SQL check, on EXPLAIN AST output as ClickHouse prints it.
import { expect } from 'chai';
import { parseAstLines, refusalOf, type AstContext } from '../../../src/analytics/analystSql.js';

const context: AstContext = {
  database: 'alertmon',
  databases: new Set(['alertmon', 'system', 'default', 'INFORMATION_SCHEMA', 'information_schema']),
  tableFunctions: new Set(['file', 'url', 'remote', 'numbers', 'format']),
};
const check = (dump: string) => refusalOf(parseAstLines(dump.split('\n')), context);

const selectFrom = (source: string) => `SelectWithUnionQuery (children 1)
 ExpressionList (children 1)
  SelectQuery (children 2)
   ExpressionList (children 1)
    Asterisk
   TablesInSelectQuery (children 1)
    TablesInSelectQueryElement (children 1)
     TableExpression (children 1)
      ${source}`;

describe('analyst SQL check', () => {
  it('allows a SELECT over the service database, qualified or not', () => {
    expect(check(selectFrom('TableIdentifier rollup_hour_v (alias h)'))).to.equal(null);
    expect(check(selectFrom('TableIdentifier alertmon.logs'))).to.equal(null);
    expect(check(selectFrom('Subquery (children 1)'))).to.equal(null);
  });

  it('refuses other databases, table functions and statements that are not a SELECT', () => {
    expect(check(selectFrom('TableIdentifier system.tables'))).to.match(/database alertmon/);
    expect(check(selectFrom('TableIdentifier alertmon.x.tables'))).to.match(/database alertmon/);
    expect(check(selectFrom('Function file (children 1)'))).to.match(/table function/i);
    expect(check(selectFrom('Function format (children 1)'))).to.match(/table function/i);
    expect(check('DescribeQuery (children 1)\n TableExpression (children 1)\n  Function file (children 1)')).to.match(/Only one SELECT/);
    expect(check('KillQueryQuery Literal_UInt64_1 ASYNC (children 1)\n Literal UInt64_1')).to.match(/Only one SELECT/);
    expect(check('UseQuery system (children 1)\n Identifier system')).to.match(/Only one SELECT/);
  });

  it('refuses output options, and EXPLAIN of anything but one SELECT', () => {
    expect(check(`${selectFrom('TableIdentifier logs')}\n Literal '/tmp/out'`.replace('(children 1)', '(children 2)'))).to.match(/INTO OUTFILE/);
    expect(check('Explain EXPLAIN (children 2)\n SelectWithUnionQuery (children 1)\n  ExpressionList\n Identifier JSON')).to.match(/EXPLAIN takes one SELECT/);
    expect(check('Explain EXPLAIN (children 2)\n Set\n SelectWithUnionQuery (children 1)\n  ExpressionList')).to.equal(null);
  });

  it('refuses functions that read outside the query, and tables read through IN', () => {
    const withFunction = (fn: string) =>
      `SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery (children 1)\n   ExpressionList (children 1)\n    Function ${fn} (children 1)`;
    for (const fn of ['file', 'dictGet', 'dictGetString', 'joinGet', 'hasColumnInTable', 'url']) expect(check(withFunction(fn)), fn).not.to.equal(null);
    for (const fn of ['sum', 'quantilesTDigestMerge', 'format', 'JSONExtractString']) expect(check(withFunction(fn)), fn).to.equal(null);
    expect(check(`${withFunction('in')}\n      ExpressionList (children 2)\n       Literal 'x'\n       Identifier system.tables`)).to.match(/system\.tables/);
    expect(check(`${withFunction('in')}\n      ExpressionList (children 2)\n       Identifier h.event\n       Identifier t.events`)).to.equal(null);
  });

  it('cannot be fooled by a name holding a line break', () => {
    // `SELECT 1 AS "a\n      TableIdentifier logs" FROM file(…)`: the alias splits its line,
    // but the table function's own line still starts with its type and name.
    const dump = selectFrom('Function file (alias a\n      TableIdentifier logs) (children 1)');
    expect(check(dump)).to.match(/table function/i);
  });
});
