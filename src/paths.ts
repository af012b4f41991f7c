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

/** The version in package.json (the OpenAPI document states it). */
export const packageVersion = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
