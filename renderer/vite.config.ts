/**
 * Build of the kiosk screens.
 *   npx vite build --config renderer/vite.config.ts             → dist/kiosk-page/ (production: index.html only; part of npm run build)
 *   npx vite build --config renderer/vite.config.ts --mode dev  → dist/kiosk-page-dev/ (dev page with the fake kiosk)
 *   npx vite --config renderer/vite.config.ts --mode dev        → dev server; open /dev/
 * Relative paths (`base: './'`) so Electron can load the build from file://.
 * Not dist/renderer/: tsc (tsconfig.json) writes the renderer's type modules
 * that main/ imports there, and the page's folder must hold only the page.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const rendererRoot = fileURLToPath(new URL('.', import.meta.url));
const inRenderer = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const inRepository = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

export default defineConfig(({ mode }) => {
  // The fake kiosk lives only in dev/ and only the dev page loads it: the production build never sees it.
  const dev = mode === 'dev';
  return {
    root: rendererRoot,
    base: './',
    publicDir: false,
    build: {
      outDir: dev ? inRepository('dist/kiosk-page-dev') : inRepository('dist/kiosk-page'),
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
