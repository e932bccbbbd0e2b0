/**
 * How the web host answers (server.ts and its routes): the security headers
 * on every response, the JSON envelope of an error (the same shape as the
 * kiosk calls' answers, main/host/call-envelope.ts), its HTTP status, and
 * the small writers for JSON, text and files.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONTENT_SECURITY_POLICY } from '../host/content-security-policy.js';
import type { AnswerErrorCode } from '../host/kiosk-calls.js';

export type HostErrorCode =
  | AnswerErrorCode
  | 'unauthorized'
  | 'too_many_streams'
  | 'invalid_json'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'not_found'
  | 'method_not_allowed';

export function failure(code: HostErrorCode, message: string): { ok: false; error: { code: HostErrorCode; message: string } } {
  return { ok: false, error: { code, message } };
}

export function statusFor(code: HostErrorCode): number {
  switch (code) {
    case 'invalid_input':
    case 'invalid_json':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'unknown_method':
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'payload_too_large':
      return 413;
    case 'too_many_streams':
      return 429;
    case 'unsupported_media_type':
      return 415;
    case 'secret_store_unavailable':
      return 503;
    case 'internal_error':
      return 500;
  }
}

export function setCommonHeaders(res: ServerResponse): void {
  res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
  res.setHeader('cache-control', 'no-store');
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function notAllowed(req: IncomingMessage, res: ServerResponse, allow: string): void {
  req.resume();
  res.setHeader('allow', allow);
  sendJson(res, 405, failure('method_not_allowed', `Use ${allow}.`));
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendBody(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function sendText(req: IncomingMessage, res: ServerResponse, status: number, text: string): void {
  sendBody(req, res, status, 'text/plain; charset=utf-8', text);
}
