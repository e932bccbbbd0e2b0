/**
 * The page's side of the admin API (issuer/routes/admin/api.ts; its types are
 * issuer/dashboard-api.ts, shared with the server): every call
 * sends `Authorization: Bearer <admin token>`. The token lives in
 * sessionStorage only (this tab, until it closes), never in a URL, a cookie
 * or localStorage.
 */
import type {
  AnnulCheckInRequest,
  AnnulCheckInResult,
  ManualCheckInRequest,
  ManualCheckInResult,
  DoorSettingsRequest,
  DoorSettingsResult,
  EventOverview,
  OfflinePolicyRequest,
  OfflinePolicyResult,
  LookupResult,
  RevokeScannerResult,
  RevokeSetupResult,
  RevokeTicketRequest,
  RevokeTicketResult,
  SessionInfo,
  SetupCodeRequest,
  SetupCodeResult,
  StaffActionList,
  StaffBadgeIssued,
  StaffBadgeIssueRequest,
  StaffBadgeList,
  StaffBadgeView,
  TicketAttentionRequest,
  TicketTypeAttentionRequest,
  TicketTypeRules,
  TicketTypeHandoutsRequest,
  HandoutCounts,
  TicketAttentionResult,
  WebhookList,
} from '../issuer/dashboard-api.js';
import { t } from './messages/format.js';

const TOKEN_KEY = 'ticket-issuer-admin-token';
const API = '/admin/api';

export const storedToken = (): string | null => sessionStorage.getItem(TOKEN_KEY);
export const storeToken = (token: string): void => sessionStorage.setItem(TOKEN_KEY, token);
export const forgetToken = (): void => sessionStorage.removeItem(TOKEN_KEY);

/** An answer other than 2xx, with the ErrorEnvelope's code, message and reason; status 0 when the issuer was not reached. */
export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly reason: string | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}

async function call(method: 'GET' | 'POST', path: string, token: string | null, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`${API}${path}`, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiProblem(0, 'NETWORK', t('api.unreachable'), undefined, undefined);
  }
  if (response.ok) return response;
  let envelope: { error?: { code?: string; message?: string; details?: { reason?: string } } } = {};
  try {
    envelope = (await response.json()) as typeof envelope;
  } catch {
    // Not our envelope (a proxy's error page): the status says enough.
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  throw new ApiProblem(
    response.status,
    envelope.error?.code ?? 'HTTP',
    envelope.error?.message ?? `HTTP ${response.status}`,
    envelope.error?.details?.reason,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

const json = async <T>(response: Promise<Response>): Promise<T> => (await (await response).json()) as T;
const id = encodeURIComponent;

export function createApi(token: string | null) {
  return {
    session: () => json<SessionInfo>(call('GET', '/session', token)),
    overview: (eid: string) => json<EventOverview>(call('GET', `/events/${id(eid)}/overview`, token)),
    lookup: (eid: string, query: string) => json<LookupResult>(call('GET', `/events/${id(eid)}/tickets?q=${id(query)}`, token)),
    setTicketAttention: (tid: string, change: TicketAttentionRequest) =>
      json<TicketAttentionResult>(call('POST', `/tickets/${id(tid)}/attention`, token, change)),
    ticketTypes: (eid: string) => json<TicketTypeRules>(call('GET', `/events/${id(eid)}/ticket-types`, token)),
    setTicketTypeAttention: (eid: string, change: TicketTypeAttentionRequest) =>
      json<TicketTypeRules>(call('POST', `/events/${id(eid)}/ticket-types/attention`, token, change)),
    setTicketTypeHandouts: (eid: string, change: TicketTypeHandoutsRequest) =>
      json<TicketTypeRules>(call('POST', `/events/${id(eid)}/ticket-types/handouts`, token, change)),
    handoutCounts: (eid: string) => json<HandoutCounts>(call('GET', `/events/${id(eid)}/handouts`, token)),
    revokeTicket: (tid: string, reason: string) =>
      json<RevokeTicketResult>(
        call('POST', `/tickets/${id(tid)}/revoke`, token, (reason === '' ? {} : { reason }) satisfies RevokeTicketRequest),
      ),
    createSetupCode: (eid: string, gate: string) =>
      json<SetupCodeResult>(
        call('POST', `/events/${id(eid)}/setup-codes`, token, (gate === '' ? {} : { gate_id: gate }) satisfies SetupCodeRequest),
      ),
    revokeSetupCode: (tokenId: string) => json<RevokeSetupResult>(call('POST', `/setup-codes/${id(tokenId)}/revoke`, token, {})),
    annulCheckIn: (tid: string, reason: string) =>
      json<AnnulCheckInResult>(call('POST', `/tickets/${id(tid)}/annul`, token, { reason } satisfies AnnulCheckInRequest)),
    checkInManually: (tid: string, reason: string, people?: number) =>
      json<ManualCheckInResult>(
        call('POST', `/tickets/${id(tid)}/check-in`, token, {
          reason,
          ...(people === undefined ? {} : { people }),
        } satisfies ManualCheckInRequest),
      ),
    setDoor: (eid: string, settings: DoorSettingsRequest) =>
      json<DoorSettingsResult>(call('POST', `/events/${id(eid)}/door`, token, settings)),
    setOfflinePolicy: (eid: string, policy: OfflinePolicyRequest) =>
      json<OfflinePolicyResult>(call('POST', `/events/${id(eid)}/offline-policies`, token, policy)),
    revokeScanner: (apiKeyId: string) => json<RevokeScannerResult>(call('POST', `/scanners/${id(apiKeyId)}/revoke`, token, {})),
    webhooks: () => json<WebhookList>(call('GET', '/webhooks', token)),
    staffActions: (eid: string) => json<StaffActionList>(call('GET', `/events/${id(eid)}/staff-actions`, token)),
    staffBadges: (eid: string) => json<StaffBadgeList>(call('GET', `/events/${id(eid)}/staff-badges`, token)),
    issueStaffBadge: (eid: string, request: StaffBadgeIssueRequest) =>
      json<StaffBadgeIssued>(call('POST', `/events/${id(eid)}/staff-badges`, token, request)),
    revokeStaffBadge: (sid: string, reason: string) =>
      json<StaffBadgeView>(
        call('POST', `/staff-badges/${id(sid)}/revoke`, token, (reason === '' ? {} : { reason }) satisfies RevokeTicketRequest),
      ),
    /** The CSV and the file name the issuer suggests. */
    async exportCsv(eid: string): Promise<{ blob: Blob; filename: string }> {
      const response = await call('GET', `/events/${id(eid)}/checkins.csv`, token);
      const disposition = response.headers.get('content-disposition') ?? '';
      const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'checkins.csv';
      return { blob: await response.blob(), filename };
    },
  };
}

export type AdminApi = ReturnType<typeof createApi>;
