/** Where the GPU tests write the pictures they compare (test-output/, git-ignored), to look at. */
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';

export const TEST_OUTPUT = path.resolve(__dirname, '../../test-output');

/** Writes tightly packed RGBA8 (row 0 at the top) as test-output/NAME. */
export function writeTestPng(name: string, rgba: Uint8Array, width: number, height: number): void {
  fs.mkdirSync(TEST_OUTPUT, { recursive: true });
  const png = new PNG({ width, height });
  png.data = Buffer.from(rgba);
  fs.writeFileSync(path.join(TEST_OUTPUT, name), PNG.sync.write(png));
}
