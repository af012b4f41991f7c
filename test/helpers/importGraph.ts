// The import graph of a source tree and the layering rules it must keep
// (docs/development.md, Layout and Conventions): run on src/ by test/unit/layout.test.ts,
// and on the small broken tree under test/fixtures/layout/ to show that each rule fails.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface LayoutRules {
  /**
   * The shared layer: files directly under the root (and whole folders, written "stores/")
   * that every domain may use and that use nothing but each other.
   */
  readonly shared: readonly string[];
  /** The composition roots: files directly under the root that wire the domains together, so they may import any of them. */
  readonly roots: readonly string[];
  /** The folder of the HTTP layer, which no other folder may import. */
  readonly http: string;
}

export function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Files a module imports or re-exports (relative specifiers, resolved to their .ts), type-only imports included. */
export function importedFiles(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)]
    .map(([, spec]) => spec!)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts'));
}

/** The folder directly under `root` that holds `file`, or null for the root's own files. */
export function domainOf(root: string, file: string): string | null {
  const [first, ...rest] = path.relative(root, file).split(path.sep);
  return rest.length > 0 && first !== '..' ? first! : null;
}

/** File → the files of the tree it imports. */
function fileGraph(root: string): Map<string, string[]> {
  const files = tsFilesUnder(root);
  const known = new Set(files);
  return new Map(files.map((file) => [file, importedFiles(file).filter((target) => known.has(target))]));
}

/** Domain → the other domains its modules import, with one importing file per edge. */
export function domainGraph(root: string): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const [file, targets] of fileGraph(root)) {
    const domain = domainOf(root, file);
    if (domain === null) continue;
    const edges = graph.get(domain) ?? new Map<string, string>();
    graph.set(domain, edges);
    for (const target of targets.map((t) => domainOf(root, t))) {
      if (target !== null && target !== domain && !edges.has(target)) edges.set(target, path.relative(root, file));
    }
  }
  return graph;
}

/** Every cycle of the domain graph, each shown once from its smallest name ("a → b (a/x.ts) → a"). */
function domainCycles(graph: ReadonlyMap<string, ReadonlyMap<string, string>>): string[] {
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

/**
 * One cycle per knot of files that import each other (a strongly connected component):
 * the shortest way from its first file back to itself, as "a.ts → b.ts → a.ts".
 */
function fileCycles(root: string, graph: ReadonlyMap<string, readonly string[]>): string[] {
  const rel = (f: string) => path.relative(root, f);
  const cycles: string[] = [];
  for (const knot of knots(graph)) {
    const start = [...knot].sort()[0]!;
    // Breadth first inside the knot, back to start.
    const cameFrom = new Map<string, string>();
    const queue = [start];
    let last: string | null = null;
    while (queue.length > 0 && last === null) {
      const node = queue.shift()!;
      for (const next of graph.get(node) ?? []) {
        if (!knot.has(next)) continue;
        if (next === start) {
          last = node;
          break;
        }
        if (!cameFrom.has(next)) {
          cameFrom.set(next, node);
          queue.push(next);
        }
      }
    }
    const trail = [start];
    for (let node = last; node !== null && node !== start; node = cameFrom.get(node) ?? null) trail.unshift(node);
    trail.unshift(start);
    cycles.push(trail.map(rel).join(' → '));
  }
  return cycles.sort();
}

/** The strongly connected components of more than one file, or of one that imports itself (Tarjan). */
function knots(graph: ReadonlyMap<string, readonly string[]>): Set<string>[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: Set<string>[] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const knot = new Set<string>();
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      knot.add(member);
    } while (member !== node);
    if (knot.size > 1 || (graph.get(node) ?? []).includes(node)) found.push(knot);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

export interface LayoutProblems {
  /** Files under the root that are neither shared nor a composition root (each must be placed on purpose). */
  readonly unplaced: string[];
  /** A module outside the HTTP layer that imports it. */
  readonly intoHttp: string[];
  /** Imports from the shared layer into a domain or a composition root ("config.ts → events/model.ts"). */
  readonly backArrows: string[];
  readonly fileCycles: string[];
  readonly domainCycles: string[];
}

/** Everything in the tree at `root` that breaks `rules`; all empty when it keeps them. */
export function layoutProblems(root: string, rules: LayoutRules): LayoutProblems {
  const graph = fileGraph(root);
  const rel = (f: string) => path.relative(root, f);
  const isShared = (file: string) => rules.shared.some((entry) => (entry.endsWith('/') ? rel(file).startsWith(entry) : rel(file) === entry));
  const ownFiles = [...graph.keys()].filter((file) => domainOf(root, file) === null);
  const edges = [...graph].flatMap(([file, targets]) => targets.map((target) => ({ file, target })));
  const arrow = ({ file, target }: { file: string; target: string }) => `${rel(file)} → ${rel(target)}`;
  return {
    unplaced: ownFiles.filter((file) => !isShared(file) && !rules.roots.includes(rel(file))).map(rel),
    intoHttp: edges
      .filter((e) => domainOf(root, e.file) !== rules.http && domainOf(root, e.target) === rules.http && !rules.roots.includes(rel(e.file)))
      .map(arrow),
    backArrows: edges.filter((e) => isShared(e.file) && !isShared(e.target)).map(arrow),
    fileCycles: fileCycles(root, graph),
    domainCycles: domainCycles(domainGraph(root)),
  };
}
