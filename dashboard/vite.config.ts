/**
 * Build of the issuer's admin dashboard page (served by the issuer at /admin).
 *   npx vite build --config dashboard/vite.config.ts   → dist/dashboard/ (part of npm run build)
 * Absolute asset URLs under /admin/ (the page is served at /admin, without a trailing slash).
 * No inlined assets and no inline script, so the page's strict CSP holds (issuer/routes/admin/page.ts).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    target: 'chrome120',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: true,
  },
});
