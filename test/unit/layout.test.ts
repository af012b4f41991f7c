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

// Domain code must run without HTTP (workers, scripts): the layering the README's Layout describes.
describe('layout', () => {
  it('has no module under src/<domain>/ import from src/http/', () => {
    const domains = readdirSync(srcDir, { withFileTypes: true }).filter((e) => e.isDirectory() && e.name !== 'http');
    expect(domains.map((d) => d.name)).to.include.members(['events', 'ingest', 'analytics']);
    const offenders = domains
      .flatMap((d) => tsFilesUnder(path.join(srcDir, d.name)))
      .filter((file) =>
        [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].some(
          ([, spec]) => spec!.startsWith('.') && path.resolve(path.dirname(file), spec!).startsWith(path.join(srcDir, 'http') + path.sep),
        ),
      )
      .map((file) => path.relative(projectRoot, file));
    expect(offenders).to.deep.equal([]);
  });
});
