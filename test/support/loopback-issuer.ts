/**
 * A small issuer on a real loopback socket, speaking the spec's wire format
 * (discovery, enroll, check-in, status) with the project's decided precedence
 * (docs/protocol.md "Precedence"). Kiosk tests use it instead of issuer/ for
 * its knobs (down, hang, 5xx, 429), which drive the kiosk's offline paths;
 * the kiosk-vs-issuer tests run the real issuer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  encodeBase64Url,
  encodeSetupCode,
  encodeTicketCode,
  isUuidV4,
  kidFromPublicKey,
  publicKeyFromSecret,
  signEd25519,
  type CheckInResponse,
  type DiscoveryDocument,
  type PublicKey,
  type SetupPayload,
  type TicketPayload,
} from '../../protocol/index.js';
import { encodeStaffBadge, type StaffBadgePayload } from '../../protocol/staff-badge.js';
import type { StaffRole } from '../../protocol/access.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

interface TicketRecord {
  payload: TicketPayload;
  revoked: boolean;
  checked_in_at: string | null;
}

export interface SigningKey {
  secret: Uint8Array<ArrayBuffer>;
  key: PublicKey;
}

export function makeSigningKey(seed: number, validFrom = '2026-01-01T00:00:00Z', validUntil: string | null = null): SigningKey {
  const secret = new Uint8Array(32).fill(seed);
  const raw = publicKeyFromSecret(secret);
  return {
    secret,
    key: { kid: kidFromPublicKey(raw), alg: 'Ed25519', public_key: encodeBase64Url(raw), valid_from: validFrom, valid_until: validUntil },
  };
}

export class LoopbackIssuer {
  url = '';
  readonly eid = '01JEVENT00000000000000000A';
  readonly requests: RecordedRequest[] = [];
  /** Check-ins by idempotency key: first body and the stored answer. */
  readonly idempotency = new Map<string, { body: unknown; status: number; response: unknown }>();
  readonly tickets = new Map<string, TicketRecord>();
  readonly signatureReports: unknown[] = [];
  signingKeys: SigningKey[] = [makeSigningKey(1)];
  /** Published keys; defaults to the signing keys. */
  publishedKeys: PublicKey[] | null = null;
  apiKeys = new Map<string, { eid: string; gate_id: string | null; api_key_id: string }>();
  tokens = new Map<string, 'unused' | 'used' | 'revoked'>();

  // Knobs.
  /** Destroy every connection without answering (network down). */
  down = false;
  /** Accept requests and never answer (a black-holed network). */
  hang = false;
  delayMs = 0;
  fail5xx = 0;
  rateLimit: { count: number; retryAfterS: number } | null = null;
  /** The scope expiry handed out at enrollment. */
  keyExpiresAt: () => string = () => new Date(Date.now() + 86_400_000).toISOString();
  /** Called as each check-in request arrives, before it is answered (e.g. to kill a client mid-request). */
  onCheckIn: ((count: number) => void) | null = null;
  /** The `attention` extension of an admission's answer, by tid (docs/protocol.md "Attention notes (project extension)"). */
  attention = new Map<string, { required: boolean; notes: string[] }>();
  /** Overrides the discovery document body (invalid documents). */
  discoveryOverride: ((doc: DiscoveryDocument) => unknown) | null = null;

  private server: Server | null = null;
  private ticketCounter = 0;
  private readonly hanging = new Set<ServerResponse>();

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  discovery(): DiscoveryDocument {
    return {
      protocol_version: 1,
      issuer: this.url,
      name: 'Loopback Tickets',
      keys: this.publishedKeys ?? this.signingKeys.map((k) => k.key),
      endpoints: {
        check_in: `${this.url}/api/v1/tickets/check-in`,
        status: `${this.url}/api/v1/tickets/{tid}/status`,
        scanner_enroll: `${this.url}/api/v1/scanners/enroll`,
      },
      supported_versions: [1],
    };
  }

  /**
   * A staff badge signed by this issuer's first key (docs/protocol.md "Staff badge"), for its event, valid
   * from a minute ago for an hour: "Kim" for a supervisor, "Sam" otherwise, staff id `stf_<role>`.
   */
  staffBadge(role: StaffRole, overrides: Partial<StaffBadgePayload> = {}): string {
    const now = Math.floor(Date.now() / 1000);
    const signer = this.signingKeys[0]!;
    const payload: StaffBadgePayload = {
      v: 1,
      iss: this.url,
      kid: signer.key.kid,
      sid: `stf_${role}`,
      name: role === 'supervisor' ? 'Kim' : 'Sam',
      role,
      eids: [this.eid],
      iat: now - 60,
      nbf: now - 60,
      exp: now + 3600,
      ...overrides,
    };
    return encodeStaffBadge(payload, (message) => signEd25519(message, signer.secret));
  }

  issueTicket(
    overrides: Partial<TicketPayload> = {},
    signer: SigningKey = this.signingKeys[0]!,
  ): { tid: string; code: string; payload: TicketPayload } {
    const tid = `01JTICKET${String(++this.ticketCounter).padStart(17, '0')}`;
    const payload: TicketPayload = {
      v: 1,
      iss: this.url,
      kid: signer.key.kid,
      tid,
      eid: this.eid,
      ev: { name: 'Summer Gala', date: '2026-06-01T19:00:00Z', venue: 'Hall 1' },
      tt: 'Standard',
      hn: `Holder ${this.ticketCounter}`,
      iat: Math.floor(Date.parse('2026-05-01T00:00:00Z') / 1000),
      exp: Math.floor(Date.now() / 1000) + 86_400,
      ...overrides,
    };
    this.tickets.set(payload.tid, { payload, revoked: false, checked_in_at: null });
    return { tid: payload.tid, code: encodeTicketCode(payload, (m) => signEd25519(m, signer.secret)), payload };
  }

  setupCode(overrides: Partial<SetupPayload> = {}): string {
    const token = encodeBase64Url(randomBytes(24));
    this.tokens.set(token, 'unused'); // an overriding token stays unknown to the issuer
    return encodeSetupCode({
      v: 1,
      iss: this.url,
      enroll_url: `${this.url}/api/v1/scanners/enroll`,
      token,
      eid: this.eid,
      event_name: 'Summer Gala',
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      ...overrides,
    });
  }

  checkInRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/api/v1/tickets/check-in');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    this.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    if (path === '/api/v1/tickets/check-in') this.onCheckIn?.(this.checkInRequests().length);
    if (this.down) {
      req.socket.destroy();
      return;
    }
    if (this.hang) {
      this.hanging.add(res);
      return;
    }
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.fail5xx > 0) {
      this.fail5xx--;
      return send(res, 500, errorBody('INTERNAL', 'simulated failure'));
    }
    if (this.rateLimit && this.rateLimit.count > 0) {
      this.rateLimit.count--;
      res.setHeader('retry-after', String(this.rateLimit.retryAfterS));
      return send(res, 429, errorBody('RATE_LIMITED', 'slow down'));
    }
    if (req.method === 'GET' && path === '/.well-known/ticket-issuer.json') {
      const doc = this.discovery();
      return send(res, 200, this.discoveryOverride ? this.discoveryOverride(doc) : doc);
    }
    if (req.method === 'POST' && path === '/api/v1/scanners/enroll') return this.enroll(res, body);
    if (req.method === 'POST' && path === '/api/v1/tickets/check-in') return this.checkIn(req, res, body);
    const status = /^\/api\/v1\/tickets\/([^/]+)\/status$/.exec(path);
    if (req.method === 'GET' && status) return this.status(req, res, decodeURIComponent(status[1]!));
    return send(res, 404, errorBody('NOT_FOUND', 'no such route'));
  }

  private enroll(res: ServerResponse, body: unknown): void {
    const b = body as { token?: string; scanner_id?: string };
    const state = b?.token ? this.tokens.get(b.token) : undefined;
    if (!b?.scanner_id) return send(res, 400, errorBody('INVALID_REQUEST', 'scanner_id missing', { field: 'scanner_id' }));
    if (state === 'revoked') return send(res, 403, errorBody('TOKEN_REVOKED', 'revoked'));
    if (state !== 'unused') return send(res, 400, errorBody('INVALID_TOKEN', 'invalid token'));
    this.tokens.set(b.token!, 'used');
    const apiKey = `sk_${encodeBase64Url(randomBytes(24))}`;
    const apiKeyId = `ak_${randomUUID().slice(0, 8)}`;
    this.apiKeys.set(apiKey, { eid: this.eid, gate_id: null, api_key_id: apiKeyId });
    send(res, 200, {
      api_key: apiKey,
      api_key_id: apiKeyId,
      scope: {
        eid: this.eid,
        event_name: 'Summer Gala',
        event_date: '2026-06-01T19:00:00Z',
        gate_id: null,
        expires_at: this.keyExpiresAt(),
      },
      issuer: { name: 'Loopback Tickets', iss: this.url },
    });
  }

  private auth(req: IncomingMessage): { eid: string } | null {
    const header = req.headers.authorization ?? '';
    const key = header.startsWith('Bearer ') ? header.slice(7) : '';
    return this.apiKeys.get(key) ?? null;
  }

  private checkIn(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    // docs/protocol.md "Precedence".
    const scope = this.auth(req);
    if (!scope) return send(res, 401, errorBody('UNAUTHORIZED', 'bad key'));
    const b = body as Record<string, unknown> | undefined;
    for (const field of ['tid', 'eid', 'scanned_at', 'scanner_id', 'idempotency_key']) {
      if (typeof b?.[field] !== 'string') return send(res, 400, errorBody('INVALID_REQUEST', 'missing field', { field }));
    }
    const key = b!['idempotency_key'] as string;
    const headerKey = req.headers['idempotency-key'];
    if (!isUuidV4(key) || (headerKey !== undefined && headerKey !== key)) {
      return send(res, 400, errorBody('INVALID_REQUEST', 'bad idempotency key', { field: 'idempotency_key' }));
    }
    const previous = this.idempotency.get(key);
    if (previous) {
      if (canonical(previous.body) !== canonical(b)) return send(res, 409, errorBody('IDEMPOTENCY_CONFLICT', 'different body'));
      return send(res, previous.status, previous.response);
    }
    const answer = (status: number, response: unknown): void => {
      this.idempotency.set(key, { body: b, status, response });
      send(res, status, response);
    };
    if (b!['eid'] !== scope.eid) return send(res, 403, errorBody('FORBIDDEN', 'other event'));
    if (b!['signature_status'] === 'invalid') {
      this.signatureReports.push(b);
      return answer(400, errorBody('INVALID_REQUEST', 'signature reported invalid', { reason: 'invalid_signature' }));
    }
    const ticket = this.tickets.get(b!['tid'] as string);
    if (!ticket) return answer(404, errorBody('NOT_FOUND', 'unknown ticket'));
    const summary = (checkedInAt: string | null): CheckInResponse['ticket'] => ({
      tid: ticket.payload.tid,
      eid: ticket.payload.eid,
      holder_name: ticket.payload.hn ?? 'Guest',
      ticket_type: ticket.payload.tt ?? 'Standard',
      checked_in_at: checkedInAt,
    });
    const scannedAt = b!['scanned_at'] as string;
    if (ticket.payload.eid !== b!['eid']) return answer(200, { status: 'wrong_event', ticket: summary(null) });
    if (ticket.revoked) return answer(200, { status: 'revoked', ticket: summary(null) });
    if (ticket.payload.exp * 1000 < Date.parse(scannedAt)) return answer(200, { status: 'expired', ticket: summary(null) });
    if (ticket.checked_in_at) return answer(200, { status: 'already_used', ticket: summary(ticket.checked_in_at) });
    ticket.checked_in_at = scannedAt;
    const attention = this.attention.get(ticket.payload.tid);
    return answer(200, { status: 'valid', ticket: summary(scannedAt), ...(attention ? { attention } : {}) });
  }

  private status(req: IncomingMessage, res: ServerResponse, tid: string): void {
    const scope = this.auth(req);
    if (!scope) return send(res, 401, errorBody('UNAUTHORIZED', 'bad key'));
    const ticket = this.tickets.get(tid);
    if (!ticket) return send(res, 404, errorBody('NOT_FOUND', 'unknown ticket'));
    if (ticket.payload.eid !== scope.eid) return send(res, 403, errorBody('FORBIDDEN', 'other event'));
    const state = ticket.revoked
      ? 'revoked'
      : ticket.checked_in_at
        ? 'checked_in'
        : ticket.payload.exp * 1000 < Date.now()
          ? 'expired'
          : 'valid';
    send(res, 200, {
      tid,
      eid: ticket.payload.eid,
      status: state,
      holder_name: ticket.payload.hn,
      ticket_type: ticket.payload.tt,
      issued_at: new Date(ticket.payload.iat * 1000).toISOString(),
      checked_in_at: ticket.checked_in_at,
    });
  }
}

function errorBody(code: string, message: string, details: Record<string, unknown> = {}): unknown {
  return { error: { code, message, details } };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** JSON with sorted keys: "same body" compares parsed JSON (docs/protocol.md "Precedence" check 3). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
