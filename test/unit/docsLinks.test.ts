// The README and docs/ link to each other's sections: a page renamed or a heading reworded
// would leave a link that sends its reader nowhere. Every relative link (outside code) must
// name a file of the repository and, with a #fragment into a Markdown page, one of its
// headings, as GitHub spells their anchors.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

const pages = [
  'README.md',
  ...readdirSync(path.join(projectRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks and inline code. */
const prose = (markdown: string) => markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').matchAll(/^#{1,6} (.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe('links between the docs', () => {
  it('finds the README and the docs pages', () => {
    expect(pages).to.include.members(['README.md', 'docs/configuration.md', 'docs/performance.md']);
  });

  it('every relative link names a file that exists, and a heading of it when it has a #fragment', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(path.join(projectRoot, page), 'utf8');
      for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
        const [file, fragment] = target!.split('#') as [string, string | undefined];
        const resolved = file === '' ? path.join(projectRoot, page) : path.resolve(path.dirname(path.join(projectRoot, page)), file);
        if (!existsSync(resolved)) {
          broken.push(`${page}: (${target}) names no file`);
          continue;
        }
        if (fragment !== undefined && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(fragment)) {
          broken.push(`${page}: (${target}) names no heading of ${path.relative(projectRoot, resolved)}`);
        }
      }
    }
    expect(broken, `\n${broken.join('\n')}\n`).to.deep.equal([]);
  });
});
