/**
 * The issuer's one error catalogue. Every non-2xx answer carries the spec's
 * ErrorEnvelope (spec "Errors"; docs/protocol.md "Errors outside the
 * spec's tables"), with the HTTP status fixed by the code (protocol/error-envelope.ts).
 *
 * Messages never echo request content: a JSON parse error from V8 quotes the
 * body, and bodies may hold enrollment tokens.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { ERROR_STATUS, type ErrorBody, type ErrorCode, type ErrorEnvelope } from '../protocol/error-envelope.js';
import { SUPPORTED_VERSIONS } from '../protocol/types.js';

export class ApiError extends Error {
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers, e.g. Retry-After on 429. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = ERROR_STATUS[code];
  }

  toEnvelope(): ErrorEnvelope {
    return errorEnvelope(this.code, this.message, this.details);
  }
}

export function errorEnvelope(code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorEnvelope {
  const error: ErrorBody = { code, message };
  if (details !== undefined) error.details = details;
  return { error };
}

/** Every error the issuer raises, by name. Routes use these, never ad-hoc codes or messages. */
export const errors = {
  unauthorized: () => new ApiError('UNAUTHORIZED', 'a valid Bearer API key is required'),
  invalidField: (field: string, problem = 'is missing or has the wrong type') => new ApiError('INVALID_REQUEST', `field "${field}" ${problem}`, { field }),
  invalidBody: (message: string) => new ApiError('INVALID_REQUEST', message),
  invalidSignatureReported: () =>
    new ApiError('INVALID_REQUEST', 'the scanner reported a ticket whose signature did not verify; recorded for audit', { reason: 'invalid_signature' }),
  idempotencyConflict: () => new ApiError('IDEMPOTENCY_CONFLICT', 'this idempotency key was already used with a different request'),
  forbiddenEvent: () => new ApiError('FORBIDDEN', 'the API key is not scoped to this event'),
  forbiddenGate: () => new ApiError('FORBIDDEN', 'the API key is scoped to another gate'),
  ticketNotFound: () => new ApiError('NOT_FOUND', 'no such ticket at this issuer'),
  routeNotFound: (method: string, path: string) => new ApiError('NOT_FOUND', `no route for ${method} ${path}`),
  versionUnsupported: (version: number | string) =>
    new ApiError('PROTOCOL_VERSION_UNSUPPORTED', `protocol version ${version} is not supported`, { supported_versions: [...SUPPORTED_VERSIONS] }),
  invalidToken: () => new ApiError('INVALID_TOKEN', 'the enrollment token is unknown, malformed, expired or already used'),
  tokenRevoked: () => new ApiError('TOKEN_REVOKED', 'the enrollment token was revoked by the organizer'),
  rateLimited: (retryAfterSeconds: number) => {
    // Spec "Errors": Retry-After in integer seconds; decisions "Rate limits": at least 1.
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    return new ApiError('RATE_LIMITED', `too many requests; retry in ${seconds} s`, { retry_after: seconds }, { 'retry-after': String(seconds) });
  },
  internal: () => new ApiError('INTERNAL', 'internal error; retry with exponential backoff'),
  // The admin dashboard's API (/admin/api/*, docs/issuer.md "Admin dashboard"): the same codes, told apart by details.reason.
  adminUnauthorized: () => new ApiError('UNAUTHORIZED', 'a valid admin token is required (Authorization: Bearer <admin token>)', { reason: 'admin_token_required' }),
  adminTokenNotSet: () =>
    new ApiError('UNAUTHORIZED', 'this issuer has no admin token yet: run "ticket-issuer admin-token reset" on the issuer machine and sign in with the token it prints', {
      reason: 'admin_token_not_set',
    }),
  /** An admin action refused by the admin catalogue (issuer/admin/errors.ts): its message, its code as the reason. */
  adminNotFound: (message: string, reason: string) => new ApiError('NOT_FOUND', message, { reason }),
  adminRefused: (message: string, reason: string) => new ApiError('INVALID_REQUEST', message, { reason }),
};

/** The first offending field of an Ajv validation error, as `details.field` (spec check-in rule 4). */
export function validationField(error: Pick<FastifyError, 'validation'>): string {
  const first = error.validation?.[0];
  if (!first) return 'body';
  const missing = (first.params as { missingProperty?: unknown } | undefined)?.missingProperty;
  if (typeof missing === 'string') return missing;
  const path = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  return path === '' ? 'body' : path;
}

/** Maps anything thrown in a request to an ApiError; unknown failures become 500 INTERNAL. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation) return errors.invalidField(validationField(fastifyError as FastifyError));
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.invalidBody('the body must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.invalidBody('the body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidBody('the body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.invalidBody('the body is not valid JSON');
  }
  const status = fastifyError.statusCode ?? 500;
  // Any other client error Fastify raises (bad JSON, bad Content-Length, ...): the decisions map them all to INVALID_REQUEST.
  if (status >= 400 && status < 500) return errors.invalidBody(status === 400 && error instanceof SyntaxError ? 'the body is not valid JSON' : 'malformed request');
  return errors.internal();
}

export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(error.toEnvelope());
}

const VERSIONED_PATH = /^\/api\/v(\d+)(?:\/|$)/;

/** docs/protocol.md "Enrollment": any path under /api/vN/ for an unsupported N answers PROTOCOL_VERSION_UNSUPPORTED. */
export function unsupportedVersionOf(url: string): number | null {
  const match = VERSIONED_PATH.exec(url.split('?')[0] ?? '');
  if (!match) return null;
  const version = Number(match[1]);
  return SUPPORTED_VERSIONS.includes(version) ? null : version;
}

/** Installs the error and not-found handlers so that no answer escapes the envelope. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: apiError.code }, apiError.message);
    return sendApiError(reply, apiError);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const version = unsupportedVersionOf(request.url);
    const path = request.url.split('?')[0] ?? request.url;
    return sendApiError(reply, version === null ? errors.routeNotFound(request.method, path) : errors.versionUnsupported(version));
  });
}

/** Fastify option `frameworkErrors`: errors raised before routing (e.g. a malformed URL). */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendApiError(reply, toApiError(error));
}

/** Fastify option `clientErrorHandler`: a request Node's HTTP parser could not read still gets an envelope. */
export function clientErrorHandler(error: Error, socket: Socket): void {
  if (!socket.writable) return;
  // Node cuts a client that takes longer than the header or request timeout (connection-limits.ts).
  const tooSlow = (error as NodeJS.ErrnoException).code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const body = JSON.stringify(errorEnvelope('INVALID_REQUEST', tooSlow ? 'the request took too long to arrive' : 'malformed HTTP request'));
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
