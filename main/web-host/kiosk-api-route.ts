/**
 * POST /api/kiosk/<method>: one KioskApi call over HTTP. The body is the
 * JSON array of arguments; every argument goes through the same validation
 * as the Electron IPC (main/host/kiosk-calls.ts), and answers are the same
 * envelopes. Only application/json, which no cross-site form can send
 * without a CORS preflight (never granted: there are no CORS headers).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleKioskCall, isKioskCallName, type KioskCalls } from '../host/kiosk-calls.js';
import { failure, sendJson, statusFor } from './http-answers.js';

export const MAX_BODY_BYTES = 64 * 1024;

export async function answerKioskCall(
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  core: KioskCalls,
  log: (line: string) => void,
): Promise<void> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    return sendJson(res, 415, failure('unsupported_media_type', 'Kiosk API requests must be sent as application/json.'));
  }
  if (!isKioskCallName(method)) {
    req.resume();
    return sendJson(res, 404, failure('unknown_method', 'There is no such kiosk call.'));
  }
  const body = await readBody(req);
  if (body === null) return sendJson(res, 413, failure('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`));
  let args: unknown = [];
  if (body.trim() !== '') {
    try {
      args = JSON.parse(body);
    } catch {
      return sendJson(
        res,
        400,
        failure('invalid_json', 'The request body is not valid JSON: send the arguments as a JSON array, e.g. ["tkt1...."].'),
      );
    }
  }
  const answer = await handleKioskCall(core, method, args, {
    onInternalError: (failed, error) =>
      log(`${failed} failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
  });
  sendJson(res, answer.ok ? 200 : statusFor(answer.error.code), answer);
}

/**
 * The body as text, or null when it is larger than MAX_BODY_BYTES. An
 * oversized body is still read to its end (and dropped), so the client gets
 * the 413 instead of a reset connection.
 */
function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolveBody, rejectBody) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolveBody(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', rejectBody);
  });
}
