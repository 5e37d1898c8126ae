/**
 * The e2e project's one production build of the page (vite build into a temporary
 * folder), shared by every test file that serves it (bench/browser.ts startAppServer
 * with `built`, through SPLATVIEW_BUILT_DIR): one build a run instead of one a file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'vite';

export default async function setup(): Promise<() => void> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'splatview-e2e-build-'));
  await build({ root: path.resolve(__dirname, '../..'), logLevel: 'error', build: { outDir, emptyOutDir: true } });
  process.env.SPLATVIEW_BUILT_DIR = outDir;
  return () => fs.rmSync(outDir, { recursive: true, force: true });
}
