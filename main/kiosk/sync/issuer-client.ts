/**
 * HTTP client for the issuer's endpoints (docs/protocol.md "Endpoints"), on the fetch
 * built into Node 20. Every call returns a typed outcome instead of throwing,
 * so callers decide (scan: go offline; drain: back off; UI: re-enroll).
 *
 * The API key is only ever put in the Authorization header: never in an
 * outcome, an error message or a log line (docs/protocol.md "Authentication").
 */
import { isHandoutList, type HandoutAnswer, type HandoutRequest } from '../../../protocol/handouts.js';
import {
  validateRules,
  ANSWERS_BY_ACTION,
  CHECK_IN_STATUSES,
  ENTRY_POLICIES,
  OFFLINE_POLICY_KINDS,
  TICKET_STATES,
  isErrorCode,
  isJsonObject,
  type DoorCheckInRequest,
  type DoorCheckInResponse,
  type EnrollRequest,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type EnrollResponse,
  type ErrorCode,
  type TicketStatus,
} from '../../../protocol/index.js';
import { isRevocationPage, type RevocationPage } from '../../../protocol/revocations.js';
import { isNotesPage, type NotesPage } from '../../../protocol/attention.js';
import { parseRetryAfterMs } from '../decide/backoff.js';
import { offsetBoundsOf, type OffsetBounds } from '../decide/clock.js';
import { PIN_MISMATCH_CODE, pinnedAgent } from './tls-pinning.js';
import type { FoundTicket } from '../kiosk-api.js';
import { readSearchAnswer } from './ticket-search-answer.js';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface IssuerClientOptions {
  /** Replaces the global fetch (tests, or a fetch bound to a custom TLS setup). */
  fetch?: FetchLike;
  /**
   * An undici Dispatcher passed through to Node's fetch, e.g. an Agent whose
   * `connect` options pin the issuer's self-signed certificate by SHA-256
   * fingerprint or trust a CA file (docs/protocol.md "The admin CLI", `serve`).
   */
  dispatcher?: RequestInit['dispatcher'];
  /** Default timeout for calls that are given none. */
  timeoutMs?: number;
  now?: () => number;
  /**
   * Every answer's Date header, as bounds on the kiosk clock's offset (decide/clock.ts offsetBoundsOf:
   * measured around the request on `now`), for sync/issuer-clock.ts (docs/kiosk.md "The kiosk's clock").
   */
  noteIssuerTime?: (bounds: OffsetBounds) => void;
}

/** Why a call did not produce an answer from the issuer's protocol. */
export type CallFailure =
  /** Network error, DNS, TLS, connection refused, or the time budget ran out. Retry later. */
  | { kind: 'unreachable'; detail: string }
  /** 5xx, or a 2xx body that is not what the spec promises. Retry with backoff. */
  | { kind: 'server_error'; status: number; code?: string }
  /** 429 RATE_LIMITED (docs/protocol.md "Rate limits"): wait `retryAfterMs` if given. */
  | { kind: 'rate_limited'; retryAfterMs?: number }
  /** 401/403 on a Bearer endpoint: the scanner must re-enroll. Never a ticket refusal. */
  | { kind: 'unauthorized'; status: 401 | 403; code?: ErrorCode }
  /** Any other 4xx: retrying the same request cannot help. */
  | { kind: 'rejected'; status: number; code?: ErrorCode; message?: string; details?: Record<string, unknown> };

/**
 * What the issuer says is left of this key's rate limit, from the IETF draft's
 * RateLimit-Limit / -Remaining / -Reset headers (issuer/services/rate-limits.ts).
 * Absent when an issuer does not send them: the spec does not require them.
 */
export interface RateBudget {
  limit: number;
  remaining: number;
  /** Until the window ends and the full limit is available again. */
  resetMs: number;
}

export type CheckInCall =
  | { kind: 'answered'; response: DoorCheckInResponse; rateBudget?: RateBudget }
  /** docs/protocol.md "Reporting a failed signature": 400 with details.reason invalid_signature. */
  | { kind: 'signature_reported' }
  | { kind: 'not_found' }
  /**
   * docs/protocol.md "Door operations": 403 FORBIDDEN with details.reason
   * action_not_allowed (an annulment from a key without the annul right).
   * About this one request, not the key: never a reason to re-enroll.
   */
  | { kind: 'action_not_allowed' }
  | CallFailure;

/** docs/protocol.md "Scanner heartbeat". */
export type HeartbeatCall = { kind: 'answered'; response: HeartbeatResponse } | CallFailure;

export type RevocationCall = { kind: 'answered'; page: RevocationPage } | CallFailure;
export type NotesCall = { kind: 'answered'; page: NotesPage } | CallFailure;
/** docs/protocol.md "Handouts (project extension)". */
export type HandoutCall =
  { kind: 'answered'; answer: HandoutAnswer } | { kind: 'not_found' } | { kind: 'conflict' } | { kind: 'action_not_allowed' } | CallFailure;
/** docs/protocol.md "Ticket search": `action_not_allowed` is a key whose role may not search (403), `invalid_query` a 400. */
export type SearchCall =
  { kind: 'answered'; results: FoundTicket[]; more: boolean } | { kind: 'action_not_allowed' } | { kind: 'invalid_query' } | CallFailure;
export type StatusCall = { kind: 'answered'; status: TicketStatus } | { kind: 'not_found' } | CallFailure;
export type EnrollCall = { kind: 'enrolled'; response: EnrollResponse } | CallFailure;
export type DiscoveryCall = { kind: 'answered'; body: unknown } | CallFailure;

export const SCANNER_UNAUTHORIZED_MESSAGE = 'scanner no longer authorised — re-enroll';

interface RawAnswer {
  kind: 'http';
  status: number;
  body: unknown;
  headers: Headers;
}

interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export class IssuerClient {
  private readonly fetchImpl: FetchLike;
  private readonly dispatcher: RequestInit['dispatcher'];
  private readonly defaultTimeoutMs: number;
  private readonly now: () => number;
  private readonly noteIssuerTime: ((bounds: OffsetBounds) => void) | undefined;
  /** Pinned self-signed issuers by origin (tls-pinning.ts): their fingerprint and the Agent that enforces it. */
  private readonly pins = new Map<string, { fingerprint: string; agent: ReturnType<typeof pinnedAgent> }>();

  constructor(options: IssuerClientOptions = {}) {
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.dispatcher = options.dispatcher;
    this.defaultTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.now = options.now ?? Date.now;
    this.noteIssuerTime = options.noteIssuerTime;
  }

  /**
   * From now on, TLS connections to the origin of `url` accept only the
   * certificate with this SHA-256 fingerprint (setup code `tls_cert_sha256`);
   * null removes the pin, so normal CA validation applies again.
   */
  pinCertificate(url: string, fingerprint: string | null): void {
    const origin = new URL(url).origin;
    const current = this.pins.get(origin);
    if (current?.fingerprint === fingerprint) return;
    this.pins.delete(origin);
    // Requests still running on the old Agent finish; it then closes.
    if (current) void current.agent.close().catch(() => undefined);
    if (fingerprint !== null) this.pins.set(origin, { fingerprint, agent: pinnedAgent(fingerprint) });
  }

  /** The pin for the origin of `url`, or null. */
  pinnedCertificate(url: string): string | null {
    return this.pins.get(new URL(url).origin)?.fingerprint ?? null;
  }

  /** Closes the pinned connections (on kiosk shutdown). */
  async close(): Promise<void> {
    const agents = [...this.pins.values()].map((pin) => pin.agent);
    this.pins.clear();
    await Promise.allSettled(agents.map((agent) => agent.close()));
  }

  /** GET {iss}/.well-known/ticket-issuer.json. The body is validated by discovery.ts. */
  async fetchDiscovery(iss: string, options: CallOptions = {}): Promise<DiscoveryCall> {
    const answer = await this.send('GET', `${iss}/.well-known/ticket-issuer.json`, undefined, {}, options);
    if (answer.kind !== 'http') return answer;
    if (answer.status === 200) return { kind: 'answered', body: answer.body };
    return this.failure(answer, false);
  }

  /** POST the enrollment token (docs/protocol.md "Enrollment"). No Bearer: the token is the credential. */
  async enroll(enrollUrl: string, request: EnrollRequest, options: CallOptions = {}): Promise<EnrollCall> {
    const answer = await this.send('POST', enrollUrl, request, {}, options);
    if (answer.kind !== 'http') return answer;
    if (answer.status === 200) {
      return isEnrollResponse(answer.body)
        ? { kind: 'enrolled', response: answer.body }
        : { kind: 'server_error', status: 200, code: 'INTERNAL' };
    }
    // 403 TOKEN_REVOKED is about the token, not about this scanner's key.
    return this.failure(answer, false);
  }

  /**
   * POST a check-in (docs/protocol.md "Check-in"). The idempotency key
   * goes in both header and body, equal (docs/protocol.md "Precedence").
   */
  async checkIn(checkInUrl: string, apiKey: string, request: DoorCheckInRequest, options: CallOptions = {}): Promise<CheckInCall> {
    const headers = { authorization: `Bearer ${apiKey}`, 'idempotency-key': request.idempotency_key };
    const answer = await this.send('POST', checkInUrl, request, headers, options);
    if (answer.kind !== 'http') return answer;
    if (answer.status === 200) {
      if (!isCheckInResponse(answer.body, request)) return { kind: 'server_error', status: 200 };
      const rateBudget = rateBudgetOf(answer.headers);
      return rateBudget ? { kind: 'answered', response: answer.body, rateBudget } : { kind: 'answered', response: answer.body };
    }
    if (answer.status === 404) return { kind: 'not_found' };
    if (
      answer.status === 400 &&
      request.signature_status === 'invalid' &&
      errorOf(answer.body)?.details?.['reason'] === 'invalid_signature'
    ) {
      return { kind: 'signature_reported' };
    }
    if (answer.status === 403 && errorOf(answer.body)?.details?.['reason'] === 'action_not_allowed') return { kind: 'action_not_allowed' };
    return this.failure(answer, true);
  }

  /** POST the scanner heartbeat (docs/protocol.md "Scanner heartbeat"): the event's door settings and this scanner's rights. */
  async heartbeat(heartbeatUrl: string, apiKey: string, request: HeartbeatRequest, options: CallOptions = {}): Promise<HeartbeatCall> {
    const answer = await this.send('POST', heartbeatUrl, request, { authorization: `Bearer ${apiKey}` }, options);
    if (answer.kind !== 'http') return answer;
    if (answer.status === 200) {
      return isHeartbeatResponse(answer.body) ? { kind: 'answered', response: answer.body } : { kind: 'server_error', status: 200 };
    }
    return this.failure(answer, true);
  }

  /**
   * POST one handout (docs/protocol.md "Handouts (project extension)"): `given` or `refused` (with when and where) is
   * an answer; a 409 is a handout id already used for another ticket or item (final, never sent again).
   */
  async handout(url: string, apiKey: string, request: HandoutRequest, options: CallOptions = {}): Promise<HandoutCall> {
    const answer = await this.send('POST', url, request, { authorization: `Bearer ${apiKey}` }, options);
    if (answer.kind !== 'http') return answer;
    if (answer.status === 200)
      return isHandoutAnswer(answer.body, request) ? { kind: 'answered', answer: answer.body } : { kind: 'server_error', status: 200 };
    if (answer.status === 404) return { kind: 'not_found' };
    if (answer.status === 409) return { kind: 'conflict' };
    if (answer.status === 403 && errorOf(answer.body)?.details?.['reason'] === 'action_not_allowed') return { kind: 'action_not_allowed' };
    return this.failure(answer, true);
  }

  /** GET one page of the event's revocation list after `since` (docs/protocol.md "Revocation list"). */
  async revocations(url: string, apiKey: string, since: string | null, options: CallOptions = {}): Promise<RevocationCall> {
    const target = since === null ? url : `${url}?since=${encodeURIComponent(since)}`;
    const answer = await this.send('GET', target, undefined, { authorization: `Bearer ${apiKey}` }, options);
    if (answer.kind !== 'http') return answer;
    if (answer.status === 200)
      return isRevocationPage(answer.body) ? { kind: 'answered', page: answer.body } : { kind: 'server_error', status: 200 };
    return this.failure(answer, true);
  }

  /** GET one page of the event's attention notes after `since` (docs/protocol.md "Attention notes (project extension)"). */
  async notes(url: string, apiKey: string, since: string | null, options: CallOptions = {}): Promise<NotesCall> {
    const target = since === null ? url : `${url}?since=${encodeURIComponent(since)}`;
    const answer = await this.send('GET', target, undefined, { authorization: `Bearer ${apiKey}` }, options);
    if (answer.kind !== 'http') return answer;
    if (answer.status === 200)
      return isNotesPage(answer.body) ? { kind: 'answered', page: answer.body } : { kind: 'server_error', status: 200 };
    return this.failure(answer, true);
  }

  /** GET the ticket status, never changing it (docs/protocol.md "Status"). */
  async status(statusUrlTemplate: string, apiKey: string, tid: string, options: CallOptions = {}): Promise<StatusCall> {
    const url = statusUrlTemplate.replace('{tid}', encodeURIComponent(tid));
    const answer = await this.send('GET', url, undefined, { authorization: `Bearer ${apiKey}` }, options);
    if (answer.kind !== 'http') return answer;
    if (answer.status === 200) {
      return isTicketStatus(answer.body) ? { kind: 'answered', status: answer.body } : { kind: 'server_error', status: 200 };
    }
    if (answer.status === 404) return { kind: 'not_found' };
    return this.failure(answer, true);
  }

  /** GET the ticket search (docs/protocol.md "Ticket search"), never changing anything. */
  async search(searchUrl: string, apiKey: string, query: string, options: CallOptions = {}): Promise<SearchCall> {
    const answer = await this.send(
      'GET',
      `${searchUrl}?q=${encodeURIComponent(query)}`,
      undefined,
      { authorization: `Bearer ${apiKey}` },
      options,
    );
    if (answer.kind !== 'http') return answer;
    if (answer.status === 200) {
      const read = readSearchAnswer(answer.body);
      return read ? { kind: 'answered', results: read.results, more: read.more } : { kind: 'server_error', status: 200 };
    }
    if (answer.status === 403 && errorOf(answer.body)?.details?.['reason'] === 'action_not_allowed') return { kind: 'action_not_allowed' };
    if (answer.status === 400) return { kind: 'invalid_query' };
    return this.failure(answer, true);
  }

  private failure(answer: RawAnswer, bearer: boolean): CallFailure {
    const error = errorOf(answer.body);
    const code = error && isErrorCode(error.code) ? error.code : undefined;
    if (answer.status === 429) {
      const retryAfterMs = parseRetryAfterMs(answer.headers.get('retry-after'), this.now());
      return retryAfterMs === undefined ? { kind: 'rate_limited' } : { kind: 'rate_limited', retryAfterMs };
    }
    if (answer.status >= 500)
      return code ? { kind: 'server_error', status: answer.status, code } : { kind: 'server_error', status: answer.status };
    if (bearer && (answer.status === 401 || answer.status === 403)) {
      return code ? { kind: 'unauthorized', status: answer.status, code } : { kind: 'unauthorized', status: answer.status };
    }
    const rejected: CallFailure = { kind: 'rejected', status: answer.status };
    if (code) rejected.code = code;
    if (typeof error?.message === 'string') rejected.message = error.message;
    if (error?.details) rejected.details = error.details;
    return rejected;
  }

  private async send(
    method: 'GET' | 'POST',
    url: string,
    body: unknown,
    headers: Record<string, string>,
    options: CallOptions,
  ): Promise<RawAnswer | CallFailure> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.defaultTimeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    const init: RequestInit = {
      method,
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      signal,
      redirect: 'error', // never follow a redirect with a Bearer key to somewhere else
    };
    if (body !== undefined) init.body = JSON.stringify(body);
    const pinned = pinnedOrigin(this.pins, url);
    if (pinned) init.dispatcher = pinned.agent;
    else if (this.dispatcher !== undefined) init.dispatcher = this.dispatcher;
    // A pin is enforced by its Agent, which only Node's own fetch honours: a replaced fetch is bypassed for pinned origins.
    const fetchImpl: FetchLike = pinned ? (input, options) => fetch(input, options) : this.fetchImpl;
    try {
      const sentAtMs = this.now();
      const response = await fetchImpl(url, init);
      // Measured when the headers arrive: the body's transfer is no part of the round trip Date was written in.
      const bounds = offsetBoundsOf(response.headers.get('date'), sentAtMs, this.now());
      if (bounds) this.noteIssuerTime?.(bounds);
      const text = await response.text();
      let parsed: unknown = undefined;
      try {
        parsed = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { kind: 'http', status: response.status, body: parsed, headers: response.headers };
    } catch (error) {
      return { kind: 'unreachable', detail: describeNetworkError(error, signal) };
    }
  }
}

/** The RateLimit-* headers, if all three are there and are whole numbers; anything else is no budget. */
export function rateBudgetOf(headers: Headers): RateBudget | undefined {
  const whole = (name: string): number | undefined => {
    const value = headers.get(name);
    return value !== null && /^\d{1,9}$/.test(value.trim()) ? Number(value) : undefined;
  };
  const limit = whole('ratelimit-limit');
  const remaining = whole('ratelimit-remaining');
  const reset = whole('ratelimit-reset');
  if (limit === undefined || remaining === undefined || reset === undefined || limit === 0) return undefined;
  return { limit, remaining: Math.min(remaining, limit), resetMs: reset * 1000 };
}

function pinnedOrigin<T>(pins: Map<string, T>, url: string): T | undefined {
  if (pins.size === 0) return undefined;
  try {
    return pins.get(new URL(url).origin);
  } catch {
    return undefined;
  }
}

/** A short cause for logs and the operator; fetch errors never contain request headers. */
function describeNetworkError(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'timed out';
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: unknown; message?: unknown } }).cause;
    // The pin's own message says what the operator must know: wrong certificate, not a network fault.
    if (cause && cause.code === PIN_MISMATCH_CODE && typeof cause.message === 'string') return cause.message;
    if (cause && typeof cause.code === 'string') return cause.code;
    return error.name;
  }
  return 'network error';
}

function errorOf(body: unknown): { code?: unknown; message?: unknown; details?: Record<string, unknown> } | undefined {
  if (!isJsonObject(body) || !isJsonObject(body['error'])) return undefined;
  const error = body['error'];
  const details = isJsonObject(error['details']) ? error['details'] : undefined;
  return details ? { code: error['code'], message: error['message'], details } : { code: error['code'], message: error['message'] };
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** A 200 answer whose status is one the issuer may give to this request's action (the spec's, without one). */
function isCheckInResponse(body: unknown, request: DoorCheckInRequest): body is DoorCheckInResponse {
  if (!isJsonObject(body) || !isJsonObject(body['ticket'])) return false;
  const ticket = body['ticket'];
  const statuses: readonly unknown[] = request.action ? ANSWERS_BY_ACTION[request.action] : CHECK_IN_STATUSES;
  return statuses.includes(body['status']) && isString(ticket['tid']) && isString(ticket['eid']);
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function isExposurePolicy(value: unknown): boolean {
  if (!isJsonObject(value) || !(OFFLINE_POLICY_KINDS as readonly unknown[]).includes(value['policy'])) return false;
  return value['policy'] !== 'capped' || isCount(value['per_hour']);
}

function isHeartbeatResponse(body: unknown): body is HeartbeatResponse {
  if (!isJsonObject(body) || !isJsonObject(body['occupancy']) || !isJsonObject(body['offline_policies']) || !isJsonObject(body['rights']))
    return false;
  const { occupancy, offline_policies: policies, rights } = body;
  const capacity = body['capacity'];
  return (
    isString(body['eid']) &&
    (ENTRY_POLICIES as readonly unknown[]).includes(body['entry_policy']) &&
    (capacity === null || isCount(capacity)) &&
    isCount(occupancy['inside']) &&
    ['open', 'nearly_full', 'full'].includes(occupancy['level'] as string) &&
    isExposurePolicy(policies['default']) &&
    isJsonObject(policies['by_type']) &&
    Object.values(policies['by_type']).every(isExposurePolicy) &&
    typeof rights['annul'] === 'boolean' &&
    isString(body['server_time']) &&
    // docs/kiosk.md "Check-in rules offline": rules the kiosk cannot read are not taken; it keeps the last good answer.
    (body['check_in_rules'] === undefined || validateRules(body['check_in_rules']).ok)
  );
}

function isTicketStatus(body: unknown): body is TicketStatus {
  return (
    isJsonObject(body) &&
    isString(body['tid']) &&
    isString(body['eid']) &&
    (TICKET_STATES as readonly unknown[]).includes(body['status']) &&
    isString(body['issued_at'])
  );
}

function isEnrollResponse(body: unknown): body is EnrollResponse {
  if (!isJsonObject(body) || !isJsonObject(body['scope']) || !isJsonObject(body['issuer'])) return false;
  const scope = body['scope'];
  const issuer = body['issuer'];
  return (
    isString(body['api_key']) &&
    body['api_key'].length > 0 &&
    isString(body['api_key_id']) &&
    isString(scope['eid']) &&
    isString(scope['event_name']) &&
    isString(scope['event_date']) &&
    isString(scope['expires_at']) &&
    (scope['gate_id'] === undefined || scope['gate_id'] === null || isString(scope['gate_id'])) &&
    isString(issuer['name']) &&
    isString(issuer['iss'])
  );
}

/** A 200 answer to `request`, checked field by field (the kiosk trusts nothing it did not check). */
function isHandoutAnswer(body: unknown, request: HandoutRequest): body is HandoutAnswer {
  if (typeof body !== 'object' || body === null) return false;
  const answer = body as Partial<HandoutAnswer>;
  return (
    answer.handout_id === request.handout_id &&
    answer.tid === request.tid &&
    answer.item === request.item &&
    (answer.status === 'given' || answer.status === 'refused') &&
    (answer.given === undefined || isHandoutList([{ item: request.item, count: 1, given: answer.given }])) &&
    isHandoutList(answer.handouts)
  );
}
