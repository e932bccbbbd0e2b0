// No import cycles (docs/architecture.md "Tools that keep the layers"): no file reaches itself through
// its relative imports, whether the circle stays inside one folder or crosses several. Every import
// counts, `import type`, `export ... from` and `import()` included: a type-only circle costs nothing at
// run time, but it still makes two modules one concept that neither can be read without the other, and
// the fix is the same (move what both need into a third module that imports neither).
import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

const CODE_FILE = /\.(c|m)?(t|j)sx?$/;
const CODE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/** The files of the working tree: a file's stamp is its modification time, undefined when it does not exist. */
export const fileSystemSource = {
  stamp(path) {
    try {
      const stats = statSync(path);
      return stats.isFile() ? stats.mtimeMs : undefined;
    } catch {
      return undefined;
    }
  },
  read: (path) => readFileSync(path, 'utf8'),
};

/** Files held in memory (for tests): `files` maps an absolute path to its text. */
export function memorySource(files) {
  return { stamp: (path) => (Object.hasOwn(files, path) ? 0 : undefined), read: (path) => files[path] };
}

/** The relative module specifiers a source text imports, every kind of import included. */
export function relativeSpecifiersOf(text) {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.'));
}

/**
 * The file a relative specifier names, as TypeScript's NodeNext resolution finds it (`./x.js` is
 * `./x.ts` when that exists); undefined when it names no code file (JSON, CSS, a missing file).
 */
export function resolveImport(fromFile, specifier, exists) {
  const named = resolve(dirname(fromFile), specifier);
  const base = named.replace(CODE_FILE, '');
  const candidates = [
    ...CODE_EXTENSIONS.map((extension) => base + extension),
    ...CODE_EXTENSIONS.map((extension) => `${named}/index${extension}`),
  ];
  return candidates.find((candidate) => exists(candidate));
}

/** The import graph of the files `source` holds; each file's imports are read once per change of its stamp. */
export function createImportGraph(source) {
  const known = new Map();
  const exists = (path) => source.stamp(path) !== undefined;
  return {
    resolve: (fromFile, specifier) => resolveImport(fromFile, specifier, exists),
    targetsOf(path) {
      const stamp = source.stamp(path);
      if (stamp === undefined) return [];
      const cached = known.get(path);
      if (cached?.stamp === stamp) return cached.targets;
      const targets = relativeSpecifiersOf(source.read(path))
        .map((specifier) => resolveImport(path, specifier, exists))
        .filter((target) => target !== undefined);
      known.set(path, { stamp, targets });
      return targets;
    },
  };
}

/**
 * For each of `file`'s import targets that leads back to `file`, the shortest circle through it:
 * [file, target, …, file]. `targets` are the file's own imports (from the text being linted);
 * every other file's imports come from `graph`.
 */
export function circlesThrough(graph, file, targets) {
  // Forward: every file reachable from the targets, with who imports whom.
  const importers = new Map();
  const seen = new Set([file]);
  const queue = targets.filter((target) => target !== file);
  for (const target of queue) seen.add(target);
  while (queue.length > 0) {
    const current = queue.shift();
    for (const next of graph.targetsOf(current)) {
      if (!importers.has(next)) importers.set(next, new Set());
      importers.get(next).add(current);
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  // Backward from `file`: each file that reaches it, with its next step on a shortest way there.
  const nextStep = new Map([[file, undefined]]);
  const back = [file];
  while (back.length > 0) {
    const current = back.shift();
    for (const importer of importers.get(current) ?? []) {
      if (nextStep.has(importer)) continue;
      nextStep.set(importer, current);
      back.push(importer);
    }
  }
  const circles = new Map();
  for (const target of targets) {
    if (circles.has(target) || !nextStep.has(target)) continue;
    const circle = [file];
    for (let step = target; step !== file; step = nextStep.get(step)) circle.push(step);
    circle.push(file);
    circles.set(target, circle);
  }
  return circles;
}

/** The ESLint rule over the files `source` holds (the working tree, or memory in the tests). */
export function importCycleRule(source, root) {
  const graph = createImportGraph(source);
  return {
    meta: {
      type: 'problem',
      docs: { description: 'No file reaches itself through its imports (docs/architecture.md "Tools that keep the layers")' },
      schema: [],
    },
    create(context) {
      const file = context.filename;
      const imports = [];
      const add = (node, specifier) => {
        if (typeof specifier === 'string' && specifier.startsWith('.')) imports.push({ node, specifier });
      };
      const fromSource = (node) => add(node, node.source?.value);
      const shown = (path) => relative(root, path).split('\\').join('/');
      return {
        ImportDeclaration: fromSource,
        ExportNamedDeclaration: fromSource,
        ExportAllDeclaration: fromSource,
        ImportExpression: (node) => add(node, node.source.type === 'Literal' ? node.source.value : undefined),
        TSImportType: (node) => add(node, (node.source ?? node.argument?.literal)?.value),
        TSExternalModuleReference: (node) => add(node, node.expression?.value),
        'Program:exit'() {
          const resolved = imports
            .map(({ node, specifier }) => ({ node, target: graph.resolve(file, specifier) }))
            .filter(({ target }) => target !== undefined);
          const circles = circlesThrough(
            graph,
            file,
            resolved.map(({ target }) => target),
          );
          const reported = new Set();
          for (const { node, target } of resolved) {
            const circle = circles.get(target);
            if (!circle || reported.has(target)) continue;
            reported.add(target);
            context.report({
              node,
              message:
                `Import cycle: ${circle.map(shown).join(' → ')}. Every import counts, \`import type\` included: ` +
                'move what these files share into a module that imports none of them (docs/architecture.md "Tools that keep the layers").',
            });
          }
        },
      };
    },
  };
}
