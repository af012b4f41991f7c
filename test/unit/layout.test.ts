import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

const srcDir = path.join(projectRoot, 'src');

function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Files a module imports or re-exports (relative specifiers, resolved), type-only imports included. */
function importedFiles(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)]
    .map(([, spec]) => spec!)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec));
}

/** The folder directly under src/ that holds `file`, or null for src/'s own files. */
function domainOf(file: string): string | null {
  const [first, ...rest] = path.relative(srcDir, file).split(path.sep);
  return rest.length > 0 && first !== '..' ? first! : null;
}

const domains = () => readdirSync(srcDir, { withFileTypes: true }).filter((e) => e.isDirectory());

/** Domain → the other domains its modules import, with one importing file per edge. */
function domainGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const domain of domains()) {
    const edges = new Map<string, string>();
    for (const file of tsFilesUnder(path.join(srcDir, domain.name))) {
      for (const target of importedFiles(file).map(domainOf)) {
        if (target !== null && target !== domain.name && !edges.has(target)) edges.set(target, path.relative(projectRoot, file));
      }
    }
    graph.set(domain.name, edges);
  }
  return graph;
}

/** Every cycle of the graph, each shown once from its smallest name ("a → b (a/x.ts) → a"). */
function cyclesOf(graph: ReadonlyMap<string, ReadonlyMap<string, string>>): string[] {
  const cycles = new Set<string>();
  const walk = (start: string, node: string, trail: string[], seen: Set<string>) => {
    for (const [next, via] of graph.get(node) ?? []) {
      const step = [...trail, `${node} → ${next} (${via})`];
      if (next === start) cycles.add(step.join(', '));
      // Only cycles whose smallest member is `start`, so each is reported once.
      else if (next > start && !seen.has(next)) walk(start, next, step, new Set([...seen, next]));
    }
  };
  for (const start of [...graph.keys()].sort()) walk(start, start, [], new Set([start]));
  return [...cycles];
}

// Domain code must run without HTTP (workers, scripts): the layering the README's Layout describes.
describe('layout', () => {
  it('has no module under src/<domain>/ import from src/http/', () => {
    const names = domains()
      .map((d) => d.name)
      .filter((name) => name !== 'http');
    expect(names).to.include.members(['events', 'ingest', 'analytics']);
    const offenders = names
      .flatMap((name) => tsFilesUnder(path.join(srcDir, name)))
      .filter((file) => importedFiles(file).some((target) => domainOf(target) === 'http'))
      .map((file) => path.relative(projectRoot, file));
    expect(offenders).to.deep.equal([]);
  });

  // Each domain stands on the ones below it; a loop would mean neither can be understood,
  // tested or moved without the other.
  // The rules live in the README and docs/; a comment that cites a document outside the
  // repository sends its reader nowhere.
  it('cites no document outside the repository', () => {
    const outside = new RegExp(['INTER', 'FACE', '|', 'DECI', 'SIONS'].join(''));
    const files = ['src', 'test', 'scripts', 'docs', 'web']
      .flatMap((dir) => readdirSync(path.join(projectRoot, dir), { withFileTypes: true, recursive: true }))
      .filter((e) => e.isFile() && /\.(ts|tsx|md|sql|css|html)$/.test(e.name))
      .map((e) => path.join(e.parentPath, e.name))
      .concat(path.join(projectRoot, 'README.md'));
    const citing = files.filter((file) => outside.test(readFileSync(file, 'utf8'))).map((file) => path.relative(projectRoot, file));
    expect(citing).to.deep.equal([]);
  });

  it('has no import loop between the folders under src/', () => {
    const graph = domainGraph();
    expect(graph.get('analytics')?.has('events'), 'the check sees imports between domains').to.equal(true);
    expect(cyclesOf(graph)).to.deep.equal([]);
  });
});
