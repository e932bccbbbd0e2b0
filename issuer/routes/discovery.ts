/** GET /.well-known/ticket-issuer.json (docs/protocol.md "Discovery document", "Keys"). */
import type { FastifyInstance } from 'fastify';
import type { SqlDatabase } from '../store/sql.js';
import { discoveryRepresentation, ifNoneMatchHits, PATHS } from '../services/discovery.js';
import { errorResponses, ref } from './schemas.js';

/** Scanners cache it at most one hour (docs/protocol.md "Discovery document"). */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';

export default async function discoveryRoute(app: FastifyInstance, options: { database: SqlDatabase }): Promise<void> {
  app.get(
    PATHS.discovery,
    {
      schema: {
        response: { 200: ref('DiscoveryDocument'), 304: { description: 'Not modified', type: 'null' }, ...errorResponses(500, 503) },
      },
    },
    async (request, reply) => {
      // Read per request: a rotation by another process shows at once (a few indexed reads, no cache to go stale).
      const { json, etag } = await discoveryRepresentation(options.database.read, new Date());
      reply.header('cache-control', DISCOVERY_CACHE_CONTROL).header('etag', etag);
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
      // Sent as the exact bytes the ETag hashes.
      return reply.type('application/json; charset=utf-8').send(json);
    },
  );
}
