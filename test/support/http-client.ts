/**
 * A small HTTP(S) client over real sockets for integration tests: raw status,
 * headers and body text (so byte-for-byte replays can be compared), and, for
 * HTTPS, the SHA-256 fingerprint of the certificate the server presented.
 */
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';

export interface RawResponse<Body = unknown> {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty. */
  json: Body;
  /** Fingerprint of the server certificate (HTTPS only). */
  peerFingerprint256?: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
  /** Trusted CA for HTTPS (the self-signed certificate itself). */
  ca?: string;
}

/** `Body` is the shape the caller expects (a protocol type, say): the test's expectations check it. */
export function request<Body = unknown>(url: string, options: RequestOptions = {}): Promise<RawResponse<Body>> {
  const target = new URL(url);
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...options.headers };
  if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      target,
      { method: options.method ?? 'GET', headers, agent: false, ...(options.ca !== undefined ? { ca: options.ca } : {}) },
      (res) => {
        const socket = res.socket as TLSSocket;
        const peerFingerprint256 = typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate().fingerprint256 : undefined;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: text === '' ? undefined : JSON.parse(text),
            peerFingerprint256,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
