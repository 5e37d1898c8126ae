import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The viewer is a single static page; WGSL is imported as text with `?raw`.
// 'splatview' and 'splatview/element' resolve to the library's sources, so that
// pages served by the dev server (examples/embed.html) import them as a host would.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^splatview\/element$/, replacement: fileURLToPath(new URL('./renderer/api/element.ts', import.meta.url)) },
      { find: /^splatview$/, replacement: fileURLToPath(new URL('./renderer/api/index.ts', import.meta.url)) },
    ],
  },
  // three (examples/three.html's, a devDependency) is plain ES modules: served as they are, not
  // pre-bundled on first sight (which reloads the page the dev server found it in).
  optimizeDeps: { exclude: ['three'] },
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4173 },
  build: { target: 'es2022', outDir: 'dist' },
});
