import fs from 'node:fs';
import path from 'node:path';

/** ../shared/scenes beside the checkout: real trained scenes used as test data only. */
export const SHARED_SCENES = path.resolve(__dirname, '../../../shared/scenes');

/**
 * Whether the shared scenes are present. In CI their absence is an error (the tests
 * must run there); elsewhere the tests that need them are skipped with a warning.
 */
export function haveSharedScenes(): boolean {
  if (fs.existsSync(SHARED_SCENES)) return true;
  if (process.env.CI) throw new Error(`${SHARED_SCENES} is missing: CI must provide ../shared/scenes beside the checkout`);
  console.warn(`${SHARED_SCENES} is absent: tests that read real scenes are skipped`);
  return false;
}

export function sharedScene(name: string): string {
  return path.join(SHARED_SCENES, name);
}
