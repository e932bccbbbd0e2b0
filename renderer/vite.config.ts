/**
 * Build of the kiosk screens.
 *   npx vite build --config renderer/vite.config.ts             → renderer/dist/ (production: index.html only)
 *   npx vite build --config renderer/vite.config.ts --mode dev  → renderer/dev-dist/ (dev page with the fake kiosk)
 *   npx vite --config renderer/vite.config.ts --mode dev        → dev server; open /dev/
 * Relative paths (`base: './'`) so Electron can load the build from file://.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const rendererRoot = fileURLToPath(new URL('.', import.meta.url));
const inRenderer = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig(({ mode }) => {
  // The fake kiosk lives only in dev/ and only the dev page loads it: the production build never sees it.
  const dev = mode === 'dev';
  return {
    root: rendererRoot,
    base: './',
    publicDir: false,
    build: {
      outDir: dev ? 'dev-dist' : 'dist',
      emptyOutDir: true,
      target: 'chrome120',
      // Electron and current Chromium support modulepreload; the polyfill would be dead code.
      modulePreload: { polyfill: false },
      // Inlined assets would be data: URLs; keep every asset a file so the strict CSP holds.
      assetsInlineLimit: 0,
      sourcemap: true,
      rolldownOptions: { input: dev ? inRenderer('dev/index.html') : inRenderer('index.html') },
    },
  };
});
