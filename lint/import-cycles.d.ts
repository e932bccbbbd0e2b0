// Types for lint/import-cycles.js (plain JavaScript, so ESLint loads it without a build).
import type { Rule } from 'eslint';

/** Where the cycle rule reads files: a stamp that changes when the file does (undefined: no such file), and its text. */
export interface Source {
  stamp(path: string): number | undefined;
  read(path: string): string;
}
export interface ImportGraph {
  resolve(fromFile: string, specifier: string): string | undefined;
  targetsOf(path: string): string[];
}
export const fileSystemSource: Source;
export function memorySource(files: Record<string, string>): Source;
export function relativeSpecifiersOf(text: string): string[];
export function resolveImport(fromFile: string, specifier: string, exists: (path: string) => boolean): string | undefined;
export function createImportGraph(source: Source): ImportGraph;
export function circlesThrough(graph: ImportGraph, file: string, targets: string[]): Map<string, string[]>;
export function importCycleRule(source: Source, root: string): Rule.RuleModule;
