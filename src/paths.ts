import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json, found from this file whether it runs from src/ (tsx) or dist/src/. */
function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

export const projectRoot = findProjectRoot();
/** The built browser code (scripts/buildWeb.ts): the console and the share page script. */
export const webAssetsDir = path.join(projectRoot, 'dist', 'web');
export const schemaDir = (engine: 'clickhouse' | 'postgres') => path.join(projectRoot, 'schema', engine);

/** package.json: its version (the OpenAPI document states it) and scripts. */
export const packageManifest = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
  readonly version: string;
  readonly scripts: Readonly<Record<string, string>>;
};
export const packageVersion = packageManifest.version;
