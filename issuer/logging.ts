/**
 * The issuer's pino logger. Secrets never reach a log line
 * (protocol-decisions.md "Enrollment": `api_key` never is safe to log):
 * - request serialisation keeps method, URL and peer only: no headers, no body;
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
        req: (request: FastifyRequest) => ({ method: request.method, url: request.url, remoteAddress: request.ip }),
        res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
      },
    },
    options.stream ?? pino.destination(1),
  );
}
