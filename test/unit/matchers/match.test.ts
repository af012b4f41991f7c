// Matching label sets with Alertmanager's semantics: missing labels are empty, regexes are
// RE2 anchored at both ends and run in linear time, whatever the pattern.
import { expect } from 'chai';
import { compileMatchers, matchesEmpty, matchesLabels } from '../../../src/matchers/match.js';
import { MatcherError, type Matcher } from '../../../src/matchers/model.js';
import { parseMatcher, parseMatchers } from '../../../src/matchers/parse.js';
import { anchoredRegex, RegexBudget } from '../../../src/matchers/regex.js';

const matches = (text: string, labels: Record<string, string>) => matchesLabels(parseMatchers(text), labels);

describe('matcher semantics', () => {
  it('matches every matcher of a list, a missing label as the empty string', () => {
    const labels = { alertname: 'DiskFull', severity: 'critical', instance: 'db-1:9100' };
    expect(matches('alertname="DiskFull"', labels)).to.equal(true);
    expect(matches('alertname="DiskFull", severity="warning"', labels)).to.equal(false);
    expect(matches('severity!="warning"', labels)).to.equal(true);
    expect(matches('team=""', labels)).to.equal(true);
    expect(matches('team!=""', labels)).to.equal(false);
    expect(matches('team=~".*"', labels)).to.equal(true);
    expect(matches('team!~".+"', labels)).to.equal(true);
    expect(matches('', labels)).to.equal(true);
  });

  it('anchors regexes at both ends, with RE2’s syntax', () => {
    const labels = { instance: 'db-1:9100', severity: 'Critical', path: 'a\nb' };
    expect(matches('instance=~"db-1"', labels)).to.equal(false);
    expect(matches('instance=~"db-\\\\d+:.*"', labels)).to.equal(true);
    expect(matches('instance!~"db-.*"', labels)).to.equal(false);
    expect(matches('severity=~"critical|warning"', labels)).to.equal(false);
    expect(matches('severity=~"(?i)critical|warning"', labels)).to.equal(true);
    expect(matches('instance=~"\\\\pL+-[[:digit:]]:9100"', labels)).to.equal(true);
    // `.` does not cross a line feed unless (?s) says so, as in Go.
    expect(matches('path=~"a.b"', labels)).to.equal(false);
    expect(matches('path=~"(?s)a.b"', labels)).to.equal(true);
    // One character is one code point.
    expect(matches('e=~"."', { e: '🙂' })).to.equal(true);
  });

  it('runs catastrophic patterns in linear time: the answer comes, and it is right', () => {
    const long = `${'a'.repeat(100_000)}b`;
    expect(matches('x=~"(a+)+$"', { x: long })).to.equal(false);
    expect(matches('x=~"(a+)+b"', { x: long })).to.equal(true);
    expect(matches('x=~"(a|a)*c"', { x: long })).to.equal(false);
    expect(matches('x=~"(a|aa)+"', { x: 'a'.repeat(100_000) })).to.equal(true);
    expect(matches('x=~"(.*a){20}"', { x: 'a'.repeat(50_000) })).to.equal(true);
    expect(matches('x=~"(x+x+)+y"', { x: 'x'.repeat(50_000) })).to.equal(false);
  });

  it('bounds the programs one input compiles, each and together', () => {
    const tooLarge = (text: string) => {
      try {
        parseMatchers(text);
      } catch (err) {
        return err instanceof MatcherError ? `${err.code}: ${err.reason}` : String(err);
      }
      return 'parsed';
    };
    expect(tooLarge(`x=~"${'[a-z]{1000}'.repeat(11)}"`)).to.match(/^invalid_matcher_regex: the regular expression is too large/);
    const budget = new RegexBudget(2_500);
    anchoredRegex('[a-z]{1000}0', 'a', budget);
    anchoredRegex('[a-z]{1000}1', 'b', budget);
    expect(() => anchoredRegex('[a-z]{1000}2', 'c', budget)).to.throw(MatcherError, /too large together/);
    // A pattern compiled before costs nothing again.
    anchoredRegex('[a-z]{1000}0', 'a', new RegexBudget(0));
  });

  it('compiles once and matches many label sets', () => {
    const pred = compileMatchers(parseMatchers('{job=~"api|web", env!="dev"}'));
    const sets: Record<string, string>[] = [{ job: 'api', env: 'prod' }, { job: 'web' }, { job: 'api', env: 'dev' }, { job: 'db', env: 'prod' }];
    expect(sets.map((labels) => pred(labels))).to.deep.equal([true, true, false, false]);
    // A label named like an Object.prototype property is a label like any other.
    expect(compileMatchers([parseMatcher('constructor=""')])({})).to.equal(true);
  });

  it('tells which matchers match an alert that lacks their label', () => {
    const m = (text: string): Matcher => parseMatcher(text);
    expect(['a=""', 'a!="x"', 'a=~".*"', 'a!~".+"', 'a=~"x|"'].map((t) => matchesEmpty(m(t)))).to.deep.equal([true, true, true, true, true]);
    expect(['a="x"', 'a!=""', 'a=~".+"', 'a!~".*"'].map((t) => matchesEmpty(m(t)))).to.deep.equal([false, false, false, false]);
  });
});
