// Each configuration default is written in two places a reader sees: the JSDoc of its field
// in src/config.ts (`VAR: … @default X`) and the README's configuration table. This checks
// that they agree on every default, and that loadConfig reads each variable the README
// documents (an unknown one would never be read).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
const configSource = readFileSync(path.join(projectRoot, 'src', 'config.ts'), 'utf8');

/** A default as text, for comparing: without backticks and a trailing "(…)" gloss. */
const normalise = (text: string) =>
  text
    .replace(/`/g, '')
    .replace(/\s*\([^)]*\)\s*$/, '')
    .trim();

/** README: `| \`VAR\` | default | meaning |` rows of the Configuration section. */
function readmeDefaults(): Map<string, string> {
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
  const rows = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]*) \|/gm)];
  return new Map(rows.map(([, name, value]) => [name!, normalise(value!)]));
}

/** config.ts: `/** VAR: … @default X *\/` field comments. */
function jsdocDefaults(): Map<string, string> {
  const comments = [...configSource.matchAll(/\/\*\*\s*([A-Z][A-Z0-9_]+):((?:(?!\*\/)[\s\S])*?)@default ((?:(?!\*\/)[\s\S])*?)\s*\*\//g)];
  // The README says in words what the code says as a value.
  const inWords = (value: string) =>
    value === 'null'
      ? 'unset'
      : value === "''"
        ? 'empty'
        : value === 'false'
          ? '0'
          : value.startsWith('[')
            ? value.replace(/[[\]\s]/g, '')
            : value.replace(/^'(.*)'$/, '$1');
  return new Map(comments.map(([, name, , value]) => [name!, inWords(normalise(value!.replace(/\s*\n\s*\*\s*/g, ' ')))]));
}

describe('configuration documentation', () => {
  it('the README table states the default of every variable config.ts gives one, the same', () => {
    const documented = readmeDefaults();
    const jsdoc = jsdocDefaults();
    expect(documented.size).to.be.greaterThan(30);
    expect(jsdoc.size).to.be.greaterThan(20);
    // Variables whose default is "unset" or empty carry no @default; every one that does agrees.
    for (const [name, value] of jsdoc) expect(documented.get(name), `${name}: README against config.ts`).to.equal(value);
  });

  it('reads every variable the README documents', () => {
    const read = new Set([...configSource.matchAll(/read\.\w+\(\s*'([A-Z][A-Z0-9_]+)'/g)].map(([, name]) => name!));
    for (const name of readmeDefaults().keys()) expect(read.has(name), `${name} is read by loadConfig`).to.equal(true);
  });
});
