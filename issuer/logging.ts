/**
 * The issuer's pino logger. Secrets never reach a log line
 * (docs/protocol.md "Enrollment": `api_key` never is safe to log):
 * - request serialisation keeps method, path and peer only: no headers, no
 *   body, and no query string (the dashboard's ticket search sends holder
 *   names there; personal data stays out of the log, docs/issuer.md "Threats handled");
 * - `redact` censors the Authorization header, `api_key` and `token` wherever a
 *   log call might still pass them, as a second line of defence.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'api_key',
  'token',
  'admin_token',
  'body',
  '*.api_key',
  '*.token',
  '*.admin_token',
  '*.body',
];

export interface LoggerOptions {
  level?: string;
  /** Where the JSON lines go; stdout by default. Tests pass a capturing stream. */
  stream?: DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (request: FastifyRequest) => ({ method: request.method, url: pathOnly(request.url), remoteAddress: request.ip }),
        res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
      },
    },
    options.stream ?? pino.destination(1),
  );
}

/** "/admin/api/events/E/tickets?q=Ada" → "/admin/api/events/E/tickets?…": that there was a query, not what it said. */
export function pathOnly(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined; // a log call passed something that is not a request: never throw in a logger
  const queryAt = url.indexOf('?');
  return queryAt === -1 ? url : `${url.slice(0, queryAt)}?…`;
}
