import { defineConfig } from 'vite';

// The viewer is a single static page; WGSL is imported as text with `?raw`.
export default defineConfig({
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4173 },
  build: { target: 'es2022', outDir: 'dist' },
});
