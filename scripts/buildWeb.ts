// Builds the browser code (web/): the console (Preact, uPlot) and the share page script
// (uPlot), each one minified ES module and one stylesheet, into dist/web/, which the API
// role serves. Run by `npm run build` (and so by `npm start`) and by `npm test`.
//
// esbuild rather than a hand-made pipeline: it bundles, transpiles TSX and CSS and minifies
// in one call of well under a second, with no configuration file and no dev server.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot, webAssetsDir } from '../src/paths.js';

export async function buildWeb(outdir = webAssetsDir): Promise<void> {
  const web = path.join(projectRoot, 'web');
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: { console: path.join(web, 'console', 'main.tsx'), share: path.join(web, 'share', 'main.ts') },
    outdir,
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    format: 'esm',
    // Browsers of the last few years: what ES modules and ResizeObserver need anyway.
    target: ['chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'linked',
    logLevel: 'warning',
  });
  copyFileSync(path.join(web, 'console', 'index.html'), path.join(outdir, 'console.html'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now();
  await buildWeb();
  process.stdout.write(`web assets built in ${Date.now() - started} ms: ${path.relative(projectRoot, webAssetsDir)}/\n`);
}
