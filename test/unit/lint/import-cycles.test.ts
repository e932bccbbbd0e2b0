// The cycle rule (lint/import-cycles.js, `layers/no-cycles`) refuses every circle of imports, across folders and
// inside one, `import type` included, and names the whole circle (docs/architecture.md "Tools that keep the layers").
// The files live in memory: ESLint's Linter lints the text given, the rule reads the other files from a map.
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createImportGraph, memorySource, relativeSpecifiersOf, resolveImport } from '../../../lint/import-cycles.js';
import { layersPlugin } from '../../../lint/layers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The `layers/no-cycles` messages for `path` among `files` (repository-relative paths → text), with their lines. */
function cyclesIn(files: Record<string, string>, path: string): { line: number; message: string }[] {
  const absolute = Object.fromEntries(Object.entries(files).map(([name, text]) => [`${ROOT}${name}`, text]));
  const config = {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { layers: layersPlugin(memorySource(absolute)) },
    rules: { 'layers/no-cycles': 'error' as const },
  };
  return new Linter({ cwd: ROOT })
    .verify(files[path]!, [config], { filename: `${ROOT}${path}` })
    .map(({ line, message }) => ({ line, message }));
}

describe('no import cycles', () => {
  it('refuses a → b → a across two folders, and names the whole circle', () => {
    const files = {
      'protocol/a.ts': "import { b } from '../issuer/b.js';\nexport const a = () => b;",
      'issuer/b.ts': "import { a } from '../protocol/a.js';\nexport const b = () => a;",
    };
    expect(cyclesIn(files, 'protocol/a.ts')).toEqual([
      { line: 1, message: expect.stringMatching(/^Import cycle: protocol\/a\.ts → issuer\/b\.ts → protocol\/a\.ts\. Every import counts/) },
    ]);
    expect(cyclesIn(files, 'issuer/b.ts')[0]?.message).toMatch(/Import cycle: issuer\/b\.ts → protocol\/a\.ts → issuer\/b\.ts\./);
  });

  it('refuses a circle inside one folder: a catalogue typed by the module that imports it', () => {
    const files = {
      'renderer/messages/format.ts':
        "import { de } from './de.js';\nimport { en } from './en.js';\nexport type Catalogue = typeof en;\nexport const all = { de, en };",
      'renderer/messages/en.ts': "export const en = { hello: 'Hello' };",
      'renderer/messages/de.ts': "import type { Catalogue } from './format.js';\nexport const de: Catalogue = { hello: 'Hallo' };",
    };
    expect(cyclesIn(files, 'renderer/messages/format.ts')).toEqual([
      {
        line: 1,
        message: expect.stringMatching(
          /Import cycle: renderer\/messages\/format\.ts → renderer\/messages\/de\.ts → renderer\/messages\/format\.ts\./,
        ),
      },
    ]);
    expect(cyclesIn(files, 'renderer/messages/de.ts')[0]?.message).toMatch(/`import type` included/);
    expect(cyclesIn(files, 'renderer/messages/en.ts')).toEqual([]);
  });

  it('finds a longer circle and gives its shortest way round', () => {
    const files = {
      'issuer/store/x.ts': "import './y.js';",
      'issuer/store/y.ts': "import './z.js';\nimport './w.js';",
      'issuer/store/z.ts': "import './x.js';",
      'issuer/store/w.ts': "import './z.js';",
    };
    expect(cyclesIn(files, 'issuer/store/x.ts')[0]?.message).toMatch(
      /Import cycle: issuer\/store\/x\.ts → issuer\/store\/y\.ts → issuer\/store\/z\.ts → issuer\/store\/x\.ts\./,
    );
  });

  it('counts every kind of import: re-exports, import(), typeof import(), and a file importing itself', () => {
    const back = "import type { A } from './a.js';\nexport type B = A;";
    expect(cyclesIn({ 'protocol/a.ts': "export * from './b.js';", 'protocol/b.ts': back }, 'protocol/a.ts')).toHaveLength(1);
    expect(cyclesIn({ 'protocol/a.ts': "export const b = () => import('./b.js');", 'protocol/b.ts': back }, 'protocol/a.ts')).toHaveLength(
      1,
    );
    expect(cyclesIn({ 'protocol/a.ts': "export type B = typeof import('./b.js');", 'protocol/b.ts': back }, 'protocol/a.ts')).toHaveLength(
      1,
    );
    expect(cyclesIn({ 'protocol/a.ts': "export * from './a.js';" }, 'protocol/a.ts')[0]?.message).toMatch(
      /Import cycle: protocol\/a\.ts → protocol\/a\.ts\./,
    );
  });

  it('reports each import that leads into a circle, once', () => {
    const files = {
      'protocol/a.ts':
        "import { b } from './b.js';\nimport type { B } from './b.js';\nimport { c } from './c.js';\nexport const a = [b, c];",
      'protocol/b.ts': "import './a.js';\nexport const b = 1;\nexport type B = number;",
      'protocol/c.ts': "import './a.js';\nexport const c = 1;",
    };
    expect(cyclesIn(files, 'protocol/a.ts').map(({ line }) => line)).toEqual([1, 3]);
  });

  it('allows what only looks like a circle: a shared third module, a diamond, the same name in another folder', () => {
    const files = {
      'renderer/messages/format.ts': "import { de } from './de.js';\nexport const all = { de };",
      'renderer/messages/catalogue.ts': "import type { en } from './en.js';\nexport type Catalogue = typeof en;",
      'renderer/messages/en.ts': "export const en = { hello: 'Hello' };",
      'renderer/messages/de.ts':
        "import type { Catalogue } from './catalogue.js';\nimport { en } from './en.js';\nexport const de: Catalogue = en;",
      'dashboard/messages/format.ts': "import { all } from '../../renderer/messages/format.js';\nexport const again = all;",
    };
    for (const path of Object.keys(files)) expect(cyclesIn(files, path), path).toEqual([]);
  });
});

describe('the import graph', () => {
  it('reads every relative import of a text, and no bare package or commented-out import', () => {
    const text = [
      "import type { A } from './a.js';",
      "export type * from './b.js';",
      "type C = typeof import('./c.js');",
      "const d = await import('./d.js');",
      "export { e } from '../e.js';",
      "import './side.js';",
      "import fs from 'node:fs';",
      "// import z from './comment.js'",
    ].join('\n');
    expect(relativeSpecifiersOf(text)).toEqual(['./a.js', './b.js', './c.js', './d.js', '../e.js', './side.js']);
  });

  it('resolves a specifier as TypeScript does: `.js` names the `.ts` file, a folder its index; nothing for CSS or a missing file', () => {
    const exists = (path: string) => ['/r/a.ts', '/r/d/index.ts', '/r/p.cts', '/r/s.mjs'].includes(path);
    expect(resolveImport('/r/x.ts', './a.js', exists)).toBe('/r/a.ts');
    expect(resolveImport('/r/x.ts', './d', exists)).toBe('/r/d/index.ts');
    expect(resolveImport('/r/x.ts', './p.cjs', exists)).toBe('/r/p.cts');
    expect(resolveImport('/r/x.ts', './s.mjs', exists)).toBe('/r/s.mjs');
    expect(resolveImport('/r/x.ts', './styles.css', exists)).toBeUndefined();
    expect(resolveImport('/r/x.ts', './gone.js', exists)).toBeUndefined();
  });

  it("reads a file's imports again when the file changes", () => {
    const files: Record<string, string> = { '/r/a.ts': "import './b.js';", '/r/b.ts': '', '/r/c.ts': '' };
    let stamp = 1;
    const graph = createImportGraph({ stamp: (path) => (path in files ? stamp : undefined), read: (path) => files[path]! });
    expect(graph.targetsOf('/r/a.ts')).toEqual(['/r/b.ts']);
    files['/r/a.ts'] = "import './c.js';";
    expect(graph.targetsOf('/r/a.ts')).toEqual(['/r/b.ts']);
    stamp = 2;
    expect(graph.targetsOf('/r/a.ts')).toEqual(['/r/c.ts']);
  });
});
