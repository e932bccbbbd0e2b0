// The admin CLI loads at start only what every command needs: the packages that one command alone uses
// (the PDF's pdfkit and fontkit, the certificate's selfsigned, PostgreSQL's pg, serve's Fastify and pino,
// the report's d3) are imported where that command runs (docs/architecture.md "The admin CLI starts light").
// Integration: the built files, as `ticket-issuer` runs them, followed through their static imports.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/cli-harness.js';

const STATIC_IMPORT = /^(?:import|export)\s(?!type\b)[^;]*?\sfrom\s+'([^']+)';|^import\s+'([^']+)';/gm;

/** Every package a module reaches through static imports (a dynamic `import()` is not followed). */
function packagesLoadedAtStart(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const match of fs.readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      if (!specifier.startsWith('.')) {
        packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
        continue;
      }
      const target = path.resolve(path.dirname(file), specifier);
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return packages;
}

describe('ticket-issuer at start', () => {
  const loaded = packagesLoadedAtStart(CLI);

  it('follows the imports it is meant to (the CLI parser and the SQLite driver are there)', () => {
    expect(loaded).toContain('commander');
    expect(loaded).toContain('better-sqlite3');
  });

  it.each(['pdfkit', 'fontkit', 'selfsigned', 'pg', 'fastify', 'pino', 'd3-scale', 'd3-shape'])(
    'does not load %s until the command that uses it runs',
    (name) => {
      expect(loaded).not.toContain(name);
    },
  );
});
