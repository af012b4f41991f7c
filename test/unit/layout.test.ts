import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { domainGraph, layoutProblems, type LayoutRules } from '../helpers/importGraph.js';

const srcDir = path.join(projectRoot, 'src');
const fixtureDir = path.join(projectRoot, 'test', 'fixtures', 'layout');

/**
 * The layering of src/ (docs/development.md, Layout and Conventions). The shared layer is
 * what every domain stands on, and it stands on no domain: configuration, logging, metrics,
 * errors, ids, link tokens, pages, paths, redaction, the background task helper, the public
 * links, and the stores. The composition roots build the services from the domains and start them.
 */
const RULES: LayoutRules = {
  shared: [
    'backgroundTask.ts',
    'config.ts',
    'errors.ts',
    'ids.ts',
    'linkTokens.ts',
    'logger.ts',
    'metrics.ts',
    'movableMemory.ts',
    'page.ts',
    'paths.ts',
    'publicLinks.ts',
    'redaction.ts',
    'stores/',
  ],
  roots: ['app.ts', 'main.ts', 'service.ts', 'services.ts', 'workerTasks.ts'],
  http: 'http',
};

// Domain code must run without HTTP (workers, scripts), each domain stands on the ones below
// it, and the shared layer on no domain: a loop or an arrow back up would mean neither side
// can be understood, tested or moved without the other.
describe('layout', () => {
  const problems = layoutProblems(srcDir, RULES);

  it('places every file directly under src/ in the shared layer or among the composition roots', () => {
    expect(problems.unplaced).to.deep.equal([]);
  });

  it('has no module under src/<domain>/ import from src/http/', () => {
    expect(problems.intoHttp).to.deep.equal([]);
  });

  it('has no import from the shared layer up into a domain', () => {
    expect(problems.backArrows).to.deep.equal([]);
  });

  it('has no import loop between files, type-only imports included', () => {
    expect(problems.fileCycles).to.deep.equal([]);
  });

  it('has no import loop between the folders under src/', () => {
    expect(domainGraph(srcDir).get('analytics')?.has('events'), 'the check sees imports between domains').to.equal(true);
    expect(problems.domainCycles).to.deep.equal([]);
  });

  it('finds each kind of problem in a tree that has them (test/fixtures/layout)', () => {
    const found = layoutProblems(fixtureDir, RULES);
    expect(found.unplaced).to.deep.equal(['helpers.ts']);
    expect(found.intoHttp).to.deep.equal(['alerts/store.ts → http/routes.ts']);
    expect(found.backArrows).to.deep.equal(['config.ts → alerts/model.ts']);
    expect(found.fileCycles).to.deep.equal(['alerts/model.ts → alerts/store.ts → alerts/model.ts']);
    expect(found.domainCycles).to.deep.equal(['alerts → http (alerts/store.ts), http → alerts (http/routes.ts)']);
  });

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
});
