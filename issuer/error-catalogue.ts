/**
 * The issuer's one error catalogue, in two parts:
 *
 * - ApiError and `errors`: the HTTP API's failures. Every non-2xx answer
 *   carries the spec's ErrorEnvelope (docs/protocol.md "Errors", "Errors
 *   outside the spec's tables"), with the HTTP status fixed by the code
 *   (protocol/error-envelope.ts).
 * - AdminError and ADMIN_FAILURES: the failures of the admin operations (the
 *   CLI's commands, the dashboard's actions, the on-site issuer), each code
 *   with its exit code and its answer on the dashboard's API.
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
    /** The code's own status unless given: only 503 differs (INTERNAL, see `notReady` and `databaseUnavailable`). */
    statusCode?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode ?? ERROR_STATUS[code];
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

export type NotReadyReason = 'shutting_down' | 'not_initialised' | 'database_unavailable';

const NOT_READY_MESSAGES: Record<NotReadyReason, string> = {
  shutting_down: 'this issuer process is shutting down; send new requests elsewhere',
  not_initialised: 'the issuer database holds no issuer yet',
  database_unavailable: 'the issuer database does not answer',
};

/** Whole seconds, as the protocol writes Retry-After (docs/protocol.md "Rate limits"); a load balancer polls on its own interval anyway. */
export const NOT_READY_RETRY_AFTER_S = 5;

/** Every error the issuer raises, by name. Routes use these, never ad-hoc codes or messages. */
export const errors = {
  unauthorized: () => new ApiError('UNAUTHORIZED', 'a valid Bearer API key is required'),
  invalidField: (field: string, problem = 'is missing or has the wrong type') =>
    new ApiError('INVALID_REQUEST', `field "${field}" ${problem}`, { field }),
  invalidBody: (message: string) => new ApiError('INVALID_REQUEST', message),
  invalidSignatureReported: () =>
    new ApiError('INVALID_REQUEST', 'the scanner reported a ticket whose signature did not verify; recorded for audit', {
      reason: 'invalid_signature',
    }),
  idempotencyConflict: () => new ApiError('IDEMPOTENCY_CONFLICT', 'this idempotency key was already used with a different request'),
  forbiddenEvent: () => new ApiError('FORBIDDEN', 'the API key is not scoped to this event'),
  forbiddenGate: () => new ApiError('FORBIDDEN', 'the API key is scoped to another gate'),
  /** docs/protocol.md "Door operations": an annulment from a key without the right. */
  forbiddenAction: (action: string) =>
    new ApiError(
      'FORBIDDEN',
      `this scanner's key may not ${action} check-ins (scanner setup --role supervisor, or a supervisor's staff badge)`,
      {
        reason: 'action_not_allowed',
      },
    ),
  /** docs/protocol.md "Check-in request: who at the door": a staff_badge that does not hold (signature, event, time, revoked). */
  staffBadgeRefused: (check: string, message: string) =>
    new ApiError('FORBIDDEN', `${message}; the check-in was not made`, { reason: 'staff_badge_refused', check }),
  /** docs/protocol.md "Ticket search": a key whose role may not search (a steward's). */
  forbiddenSearch: () =>
    new ApiError('FORBIDDEN', "this scanner's key may not search tickets (scanner setup --role supervisor)", {
      reason: 'action_not_allowed',
    }),
  /** docs/protocol.md "Handouts (project extension)": a key whose role may not record handouts. */
  forbiddenHandout: () =>
    new ApiError('FORBIDDEN', "this scanner's key may not record handouts (scanner setup --role steward or handout)", {
      reason: 'action_not_allowed',
    }),
  /** docs/protocol.md "Ticket search": a manual entry from a key (and badge) whose role may not make one. */
  forbiddenManualEntry: () =>
    new ApiError(
      'FORBIDDEN',
      "this scanner's key may not check a ticket in by hand (scanner setup --role supervisor, or a supervisor's staff badge)",
      {
        reason: 'action_not_allowed',
      },
    ),
  ticketNotFound: () => new ApiError('NOT_FOUND', 'no such ticket at this issuer'),
  routeNotFound: (method: string, path: string) => new ApiError('NOT_FOUND', `no route for ${method} ${path}`),
  versionUnsupported: (version: number | string) =>
    new ApiError('PROTOCOL_VERSION_UNSUPPORTED', `protocol version ${version} is not supported`, {
      supported_versions: [...SUPPORTED_VERSIONS],
    }),
  invalidToken: () => new ApiError('INVALID_TOKEN', 'the enrollment token is unknown, malformed, expired or already used'),
  tokenRevoked: () => new ApiError('TOKEN_REVOKED', 'the enrollment token was revoked by the organizer'),
  rateLimited: (retryAfterSeconds: number) => {
    // Spec "Errors": Retry-After in integer seconds; decisions "Rate limits": at least 1.
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    return new ApiError(
      'RATE_LIMITED',
      `too many requests; retry in ${seconds} s`,
      { retry_after: seconds },
      { 'retry-after': String(seconds) },
    );
  },
  internal: () => new ApiError('INTERNAL', 'internal error; retry with exponential backoff'),
  /**
   * GET /readyz when this process should get no traffic (docs/protocol.md "Health and readiness"). A load
   * balancer reads the status, 503; the spec's catalogue has no code of its own for it, and INTERNAL ("retry
   * with backoff") says what a client should do. The reason never names a path or the database's error.
   */
  notReady: (reason: NotReadyReason) =>
    new ApiError('INTERNAL', NOT_READY_MESSAGES[reason], { reason }, { 'retry-after': String(NOT_READY_RETRY_AFTER_S) }, 503),
  /**
   * A request the database could not take right now: another process holds the write lock past the busy
   * timeout, the disk is full, the file cannot be read or written (docs/issuer.md "When the database fails").
   * Nothing of the request was stored (its transaction rolled back), so the same request, with the same
   * idempotency key, is safe to send again: 503 with Retry-After says when; kiosks queue it as for any 5xx.
   */
  databaseUnavailable: () =>
    new ApiError(
      'INTERNAL',
      'the issuer database cannot take this request right now; nothing was stored: send it again later',
      { reason: 'database_unavailable' },
      { 'retry-after': String(NOT_READY_RETRY_AFTER_S) },
      503,
    ),
  // The admin dashboard's API (/admin/api/*, docs/issuer.md "Admin dashboard"): the same codes, told apart by details.reason.
  adminUnauthorized: () =>
    new ApiError('UNAUTHORIZED', 'a valid admin token is required (Authorization: Bearer <admin token>)', {
      reason: 'admin_token_required',
    }),
  adminTokenNotSet: () =>
    new ApiError(
      'UNAUTHORIZED',
      'this issuer has no admin token yet: run "ticket-issuer admin-token reset" on the issuer machine and sign in with the token it prints',
      {
        reason: 'admin_token_not_set',
      },
    ),
};

/**
 * The admin operations' failures (docs/protocol.md "The admin CLI": a failure
 * exits non-zero with a one-line reason on stderr and, with --json,
 * `{"error": {"code", "message"}}` on stdout). The codes are stable so scripts
 * can branch on them; the messages, written where the failure is found, say
 * what to do next.
 *
 * - `exitCode`: the CLI's exit status: 2 for a command line commander could
 *   not parse, 1 for every other failure.
 * - `api`: the ErrorEnvelope code the dashboard's API answers an action's
 *   failure with, `details.reason` being the code in lower case
 *   (docs/protocol.md "The admin dashboard"): "not found" → 404, a refused
 *   action → 400.
 */
export const ADMIN_FAILURES = {
  /** Commander rejected the command line (unknown option, missing argument). */
  USAGE: { exitCode: 2, api: 'INVALID_REQUEST' },
  /** A flag value is out of range or malformed. */
  INVALID_ARGUMENT: { exitCode: 1, api: 'INVALID_REQUEST' },
  INVALID_BASE_URL: { exitCode: 1, api: 'INVALID_REQUEST' },
  INVALID_DATE: { exitCode: 1, api: 'INVALID_REQUEST' },
  NOT_INITIALISED: { exitCode: 1, api: 'INVALID_REQUEST' },
  ALREADY_INITIALISED: { exitCode: 1, api: 'INVALID_REQUEST' },
  EVENT_NOT_FOUND: { exitCode: 1, api: 'NOT_FOUND' },
  TICKET_NOT_FOUND: { exitCode: 1, api: 'NOT_FOUND' },
  TOKEN_NOT_FOUND: { exitCode: 1, api: 'NOT_FOUND' },
  TOKEN_ALREADY_USED: { exitCode: 1, api: 'INVALID_REQUEST' },
  API_KEY_NOT_FOUND: { exitCode: 1, api: 'NOT_FOUND' },
  /** No webhook endpoint with that id (docs/issuer.md "Webhooks"). */
  WEBHOOK_NOT_FOUND: { exitCode: 1, api: 'NOT_FOUND' },
  /** No staff badge with that sid (docs/issuer.md "Staff roles and badges"). */
  STAFF_BADGE_NOT_FOUND: { exitCode: 1, api: 'NOT_FOUND' },
  CSV_INVALID: { exitCode: 1, api: 'INVALID_REQUEST' },
  BACKUP_TARGET_EXISTS: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** export --to names an existing file: an export never overwrites. */
  EXPORT_TARGET_EXISTS: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** Not an export, truncated, damaged (checksum), or rows of the wrong shape. */
  IMPORT_FILE_INVALID: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** Written by a newer ticket-issuer. */
  IMPORT_FILE_UNSUPPORTED_VERSION: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** An export of another issuer (other base URL, or no signing key in common). */
  IMPORT_ISSUER_MISMATCH: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** The file contradicts this issuer's data (same ID, different ticket/key/token). */
  IMPORT_CONFLICT: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** The database's schema is newer than this program knows (docs/issuer.md "Upgrading: migrate"): upgrade ticket-issuer. */
  SCHEMA_TOO_NEW: { exitCode: 1, api: 'INTERNAL' },
  /** `serve` on a database with pending migrations: run `ticket-issuer migrate` first. */
  SCHEMA_OUTDATED: { exitCode: 1, api: 'INTERNAL' },
  /** TICKET_ISSUER_DATABASE_URL, `init --database` or `<data>/database.json` is not a location this version reads, or a URL carries a password (docs/issuer.md "Where the database is"). */
  DATABASE_LOCATION_INVALID: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** An operation on the SQLite file itself (backup) on an issuer whose database is PostgreSQL. */
  DATABASE_NOT_SUPPORTED: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** The PostgreSQL server does not answer (down, wrong host or port, refused login). */
  DATABASE_UNREACHABLE: { exitCode: 1, api: 'INTERNAL' },
  /** An admin command on a serving node's dir, which holds no signing keys (docs/issuer.md "Serving nodes"). */
  SERVING_NODE_DIR: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** node-config --to names the data dir itself, or a non-empty dir that is not a node dir of this issuer. */
  NODE_TARGET_REFUSED: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** Annulling a ticket that has no check-in (docs/protocol.md "Door operations"). */
  NOT_CHECKED_IN: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** An annulment without a usable reason. */
  INVALID_REASON: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** An offline exposure policy that is not online-only, offline or a number. */
  INVALID_POLICY: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** A check-in rules file that cannot be read or does not validate; the message names each problem's path (docs/protocol.md "Check-in rules"). */
  RULES_INVALID: { exitCode: 1, api: 'INVALID_REQUEST' },
  /** `audit verify` found a scan_log row that breaks the hash chain, or a kiosk whose reported chain heads contradict each other. */
  AUDIT_CHAIN_BROKEN: { exitCode: 1, api: 'INTERNAL' },
  /** Anything unexpected (the CLI reports any other thrown error with this code). */
  INTERNAL: { exitCode: 1, api: 'INTERNAL' },
} as const satisfies Record<string, { exitCode: number; api: ErrorCode }>;

export type AdminErrorCode = keyof typeof ADMIN_FAILURES;

export class AdminError extends Error {
  override readonly name = 'AdminError';
  constructor(
    readonly code: AdminErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /** The dashboard API's answer to this failure of one of its actions. */
  toApiError(): ApiError {
    return new ApiError(ADMIN_FAILURES[this.code].api, this.message, { reason: this.code.toLowerCase() });
  }
}

export const exitCodeFor = (code: AdminErrorCode): number => ADMIN_FAILURES[code].exitCode;

/** The first offending field of an Ajv validation error, as `details.field` (docs/protocol.md "Precedence", check 2). */
export function validationField(error: Pick<FastifyError, 'validation'>): string {
  const first = error.validation?.[0];
  if (!first) return 'body';
  const missing = (first.params as { missingProperty?: unknown } | undefined)?.missingProperty;
  const path = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  // A field missing inside another is named with its path (`staff_actions.3.hash`); at the top, by itself.
  if (typeof missing === 'string') return path === '' ? missing : `${path}.${missing}`;
  return path === '' ? 'body' : path;
}

/**
 * SQLite's result codes for a database that cannot take a request now but may later (better-sqlite3's
 * SqliteError carries them as `code`, extended codes such as SQLITE_IOERR_WRITE included). A damaged
 * file (SQLITE_CORRUPT) is not among them: that stays a 500 for the operator.
 */
const DATABASE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL)(_|$)/;

/**
 * PostgreSQL's SQLSTATE classes for the same (08 connection exception, 53 insufficient resources such as
 * too many connections or a full disk, 57P shutdown/cannot connect now, 25006 read-only transaction after
 * a failover), and the socket errors of a server that is gone or unreachable.
 */
const POSTGRES_UNAVAILABLE = /^(08|53|57P)|^25006$|^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE)$/;
/** pg's own errors without a code: the pool could not get a connection in time, the connection dropped, or a query went to a client whose connection had just dropped. */
const POSTGRES_UNAVAILABLE_MESSAGE =
  /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error and is not queryable)/;

/**
 * 55000 (object not in prerequisite state) is many things; with this message it is a database whose
 * connections are switched off (`ALTER DATABASE … ALLOW_CONNECTIONS false`, as before maintenance).
 */
const POSTGRES_NOT_ACCEPTING = /is not currently accepting connections/;

/** Whether `error` says the database is unavailable for now (docs/issuer.md "When the database fails"). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '55000') return typeof message === 'string' && POSTGRES_NOT_ACCEPTING.test(message);
  if (typeof code === 'string') return DATABASE_UNAVAILABLE.test(code) || POSTGRES_UNAVAILABLE.test(code);
  return typeof message === 'string' && POSTGRES_UNAVAILABLE_MESSAGE.test(message);
}

/** Maps anything thrown in a request to an ApiError; unknown failures become 500 INTERNAL. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnavailable(error)) return errors.databaseUnavailable();
  const fastifyError = (error ?? {}) as Partial<FastifyError>;
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
  if (status >= 400 && status < 500)
    return errors.invalidBody(status === 400 && error instanceof SyntaxError ? 'the body is not valid JSON' : 'malformed request');
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
