/**
 * The dashboard's build (`npm run build:ui`): ui/ → dist/ui/, served by `tmkit serve` at /ui/. No dev-time
 * plugin is needed: Vite's own transformer compiles TSX with Preact's automatic JSX runtime.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/ui/',
  // Nothing is fetched at run time: the world geometry and the hierarchy are bundled JSON.
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    reportCompressedSize: true,
    chunkSizeWarningLimit: 600,
  },
  logLevel: 'warn',
});
