// Lint: the usual JavaScript and TypeScript rules, and the layers of
// docs/architecture.md as import rules (lint/layers.js), so a file's folder
// says where it runs and what it may import, and no file imports itself in a
// circle (lint/import-cycles.js).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import layers from './lint/layers.js';

export default tseslint.config(
  {
    ignores: ['**/dist/**', 'node_modules/**', 'release/**', 'issuer-data/**', 'demo-data/**', 'test-results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { layers },
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      'layers/imports': 'error',
      'layers/no-cycles': 'error',
      // `_name` marks a parameter that a signature requires and the body does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The browser apps, and scripts whose callbacks run in a page (Playwright's evaluate).
    files: ['renderer/**', 'dashboard/**', 'renderer/dev/*.mjs', 'scripts/demo-page.mjs'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
