// Types for lint/layers.js (plain JavaScript, so ESLint loads it without a build).
import type { ESLint } from 'eslint';
import type { Source } from './import-cycles.js';

export interface Layer {
  layer: string;
  mayImport: string[] | null;
  notFrom?: string[];
  typeOnly?: string[];
  node?: boolean;
  electron?: boolean;
  refusedModules?: string[];
  refusedPackages?: string[];
  ioPackages?: string[];
  why?: string;
}
export const IO_PACKAGES: string[];
export const LAYERS: Layer[];
export function layerOf(file: string): Layer;
export function layerViolation(file: string, source: string, options?: { typeOnly?: boolean }): string | null;
export function layersPlugin(source?: Source): ESLint.Plugin;
declare const plugin: ESLint.Plugin;
export default plugin;
