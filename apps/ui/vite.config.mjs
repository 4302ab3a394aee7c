// The control UI's build (scripts/build.js runs it): static files in dist/ui, served by the gateway
// at `/` (apps/gateway/src/ui). Everything is bundled: nothing is fetched from a CDN at run time.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  publicDir: 'public',
  // JSX through Preact's automatic runtime (the same setting as apps/ui/tsconfig.json).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/ui', import.meta.url)),
    emptyOutDir: true,
    // Under `script-src 'self'` an inline polyfill would be refused; every browser we target has modulepreload.
    modulePreload: { polyfill: false },
    // No data: URLs: the page's CSP allows images from 'self' only.
    assetsInlineLimit: 0,
    // Content-hashed names under /assets: the gateway serves them with a year-long immutable cache.
    assetsDir: 'assets',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
