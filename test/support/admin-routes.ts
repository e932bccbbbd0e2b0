/**
 * Every route a Fastify instance has, read from app.printRoutes(): the admin
 * API tests iterate over it, so a route added later cannot escape them.
 */
import type { FastifyInstance } from 'fastify';

export interface RegisteredRoute {
  method: string;
  path: string;
}

/** Parses printRoutes' tree ("├── segment (GET, HEAD)", children indented by 4 per level) into full paths. */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  const segments: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    segments.length = match[1]!.length / 4;
    segments.push(match[2]!);
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, path: segments.join('') });
  }
  return routes;
}

/** A route path with sample values for its parameters. */
export const withSampleParams = (path: string): string => path.replace(/:([A-Za-z_]+)/g, (_, name: string) => `sample-${name}`);
