// The text form of matchers, on the examples Alertmanager's own parser tests use (pkg/labels
// and matcher/parse), and the API's structured form beside it.
import { expect } from 'chai';
import { MatcherError, type Matcher } from '../../../src/matchers/model.js';
import { matchersText, matcherText, parseMatcher, parseMatchers, validMatcher } from '../../../src/matchers/parse.js';

const eq = (name: string, value: string): Matcher => ({ name, value, isRegex: false, isEqual: true });
const ne = (name: string, value: string): Matcher => ({ name, value, isRegex: false, isEqual: false });
const re = (name: string, value: string): Matcher => ({ name, value, isRegex: true, isEqual: true });
const nre = (name: string, value: string): Matcher => ({ name, value, isRegex: true, isEqual: false });

function errorOf(parse: () => unknown): MatcherError {
  try {
    parse();
  } catch (err) {
    if (err instanceof MatcherError) return err;
    throw err;
  }
  throw new Error('expected a MatcherError');
}

describe('matcher text form', () => {
  it('parses the lists Alertmanager parses, as it parses them', () => {
    const cases: [string, Matcher[]][] = [
      ['{foo="bar"}', [eq('foo', 'bar')]],
      ['{foo=~"bar.*"}', [re('foo', 'bar.*')]],
      ['{foo!="bar"}', [ne('foo', 'bar')]],
      ['{foo!~"bar.*"}', [nre('foo', 'bar.*')]],
      ['{foo="bar", baz!="quux"}', [eq('foo', 'bar'), ne('baz', 'quux')]],
      ['{foo="bar",baz!~".*quux", derp="wat"}', [eq('foo', 'bar'), nre('baz', '.*quux'), eq('derp', 'wat')]],
      ['{foo="bar", instance=~"some-api.*"}', [eq('foo', 'bar'), re('instance', 'some-api.*')]],
      ['{foo=""}', [eq('foo', '')]],
      ['{foo="bar,quux", job="job1"}', [eq('foo', 'bar,quux'), eq('job', 'job1')]],
      ['{foo = "bar", dings != "bums", }', [eq('foo', 'bar'), ne('dings', 'bums')]],
      ['foo=bar,dings!=bums', [eq('foo', 'bar'), ne('dings', 'bums')]],
      ['foo=bar, dings!=bums', [eq('foo', 'bar'), ne('dings', 'bums')]],
      ['{quote="She said: \\"Hi, ladies! That\'s gender-neutral…\\""}', [eq('quote', 'She said: "Hi, ladies! That\'s gender-neutral…"')]],
      ['statuscode=~"5.."', [re('statuscode', '5..')]],
      ['tricky=~~~', [re('tricky', '~~')]],
      ['trickier==\\\\=\\=\\"', [eq('trickier', '=\\=\\="')]],
      ['contains_quote != "\\"" , contains_comma !~ "foo,bar" , ', [ne('contains_quote', '"'), nre('contains_comma', 'foo,bar')]],
      ['{foo=🙂bar}', [eq('foo', '🙂bar')]],
      ['{foo=~[a-z]+}', [re('foo', '[a-z]+')]],
      ['{foo="bar\\n"}', [eq('foo', 'bar\n')]],
      ['{foo="bar\\\\"}', [eq('foo', 'bar\\')]],
      // A backslash before anything but ", n or \ stands for itself; so does a trailing one.
      ['{foo="a\\qb"}', [eq('foo', 'a\\qb')]],
      ['foo=bar\\', [eq('foo', 'bar\\')]],
      // A value may hold line feeds; whitespace around it goes.
      ['foo = " a\nb " ', [eq('foo', ' a\nb ')]],
      ['a:b_c=x', [eq('a:b_c', 'x')]],
      ['', []],
      ['{}', []],
      // Label names that are not identifiers, quoted (Alertmanager 0.27 and later).
      ['{"service.name"="api", "http.route"=~"/v1/.*"}', [eq('service.name', 'api'), re('http.route', '/v1/.*')]],
      ['"a,b"!="c"', [ne('a,b', 'c')]],
    ];
    for (const [text, expected] of cases) expect(parseMatchers(text), text).to.deep.equal(expected);
  });

  it('refuses what Alertmanager refuses, naming the matcher', () => {
    const cases: [string, string][] = [
      ['job="value', 'matcher value contains unescaped double quote: "value'],
      ['job=value"', 'matcher value contains unescaped double quote: value"'],
      ['job="', 'matcher value contains unescaped double quote: "'],
      ['trickier==\\\\=\\=\\""', 'matcher value contains unescaped double quote: =\\\\=\\=\\""'],
      ['contains_unescaped_quote = foo"bar', 'matcher value contains unescaped double quote: foo"bar'],
      ['{invalid-name = "valid label"}', 'bad matcher format'],
      ['"{foo=\\"bar"}', 'bad matcher format'],
      ['"foo=\\"bar"', 'bad matcher format'],
      ['"foo=\\"bar\\""', 'bad matcher format'],
      ['"{foo=\\"bar\\"}"', 'bad matcher format'],
      ['"foo="bar""', 'bad matcher format'],
      ['a=b,,c=d', 'bad matcher format'],
      [',', 'bad matcher format'],
      ['{,}', 'bad matcher format'],
      ['foo', 'bad matcher format'],
      ['1foo=bar', 'bad matcher format'],
      ['foo bar=baz', 'bad matcher format'],
    ];
    for (const [text, reason] of cases) {
      const err = errorOf(() => parseMatchers(text));
      expect(err.code, text).to.equal('invalid_matcher');
      expect(err.reason, text).to.equal(reason);
    }
    // `foo=>bar` is the value ">bar", as Alertmanager reads it.
    expect(parseMatchers('foo=>bar')).to.deep.equal([eq('foo', '>bar')]);
  });

  it('refuses a regex RE2 does not compile with invalid_matcher_regex and RE2’s reason', () => {
    const err = errorOf(() => parseMatchers('{foo=~"invalid[regexp"}'));
    expect(err.code).to.equal('invalid_matcher_regex');
    expect(err.reason).to.equal('error parsing regexp: missing closing ]: `[regexp)$`');
    expect(err.input).to.equal('foo=~"invalid[regexp"');
    expect(err.details).to.deep.equal([{ path: '', message: '"foo=~\\"invalid[regexp\\"": error parsing regexp: missing closing ]: `[regexp)$`' }]);
    expect(err.at('/inhibit_rules/0/source_matchers/1').details[0]!.path).to.equal('/inhibit_rules/0/source_matchers/1');
    // What RE2 has no place for: backreferences, lookaround, repeats over 1,000.
    for (const pattern of ['(a)\\1', '(?=a)b', '(?<=a)b', 'a{1001}', 'x**']) {
      expect(errorOf(() => parseMatcher(`x=~"${pattern}"`)).code, pattern).to.equal('invalid_matcher_regex');
    }
  });

  it('parses one matcher, as Alertmanager’s filter parameter does (commas and all are the value)', () => {
    expect(parseMatcher('foo=bar,dings!=bums')).to.deep.equal(eq('foo', 'bar,dings!=bums'));
    expect(parseMatcher(' alertname = "Disk full" ')).to.deep.equal(eq('alertname', 'Disk full'));
  });

  it('writes the text form Alertmanager shows, which parses back to the same matcher', () => {
    expect(matcherText(eq('foo', 'bar'))).to.equal('foo="bar"');
    expect(matcherText(nre('foo', 'a"b\\c\nd'))).to.equal('foo!~"a\\"b\\\\c\\nd"');
    expect(matcherText(ne('service.name', 'api'))).to.equal('"service.name"!="api"');
    expect(matchersText([eq('a', 'b'), re('c', 'd')])).to.equal('{a="b", c=~"d"}');
    const tricky = [
      eq('foo', ''),
      eq('quote', 'say "hi", then {leave}'),
      ne('back', 'slash\\'),
      re('multi', 'a\nb|c,d'),
      nre('emoji', '🙂+'),
      eq('http.route', '/v1/{id}'),
      eq('with space', 'x'),
    ];
    for (const m of tricky) expect(parseMatchers(matcherText(m)), matcherText(m)).to.deep.equal([m]);
    expect(parseMatchers(matchersText(tricky))).to.deep.equal(tricky);
  });

  it('takes the API’s structured form as it takes the text, isEqual true when absent', () => {
    expect(validMatcher({ name: 'env', value: 'prod', isRegex: false })).to.deep.equal(eq('env', 'prod'));
    expect(validMatcher({ name: 'env', value: 'prod|stage', isRegex: true, isEqual: false })).to.deep.equal(nre('env', 'prod|stage'));
    expect(errorOf(() => validMatcher({ name: '', value: 'x', isRegex: false })).code).to.equal('invalid_matcher');
    const err = errorOf(() => validMatcher({ name: 'env', value: '(', isRegex: true }));
    expect(err.code).to.equal('invalid_matcher_regex');
    expect(err.input).to.equal('env=~"("');
  });

  it('bounds names and values', () => {
    expect(errorOf(() => parseMatcher(`${'n'.repeat(1025)}="x"`)).code).to.equal('invalid_matcher');
    expect(errorOf(() => parseMatcher(`n="${'v'.repeat(4097)}"`)).code).to.equal('invalid_matcher');
    expect(parseMatcher(`n="${'v'.repeat(4096)}"`).value).to.have.length(4096);
    expect(errorOf(() => parseMatcher(`n=~"${'v'.repeat(1025)}"`)).code).to.equal('invalid_matcher_regex');
    expect(errorOf(() => validMatcher({ name: 'n', value: '\ud800', isRegex: false })).code).to.equal('invalid_matcher');
  });
});
