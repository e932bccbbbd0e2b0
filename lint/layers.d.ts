// Types for lint/layers.js (plain JavaScript, so ESLint loads it without a build).
import type { ESLint } from 'eslint';

export interface Layer {
  layer: string;
  mayImport: string[] | null;
  notFrom?: string[];
  node?: boolean;
  electron?: boolean;
  refusedModules?: string[];
  refusedPackages?: string[];
  why?: string;
}
export const LAYERS: Layer[];
export function layerOf(file: string): Layer;
export function layerViolation(file: string, source: string): string | null;
declare const plugin: ESLint.Plugin;
export default plugin;
