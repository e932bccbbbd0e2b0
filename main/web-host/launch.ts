/**
 * Who may use the browser host, the way Jupyter does it: a one-time launch
 * token in the URL the host prints, traded for a session cookie.
 *
 * - One secret (32 random bytes) per data directory, kept in the launch file
 *   `<data>/web-host.json` (mode 0600, next to kiosk.db). Launch tokens and
 *   session cookies are HMAC-SHA256 signatures made with it, so
 *   `ticket-kiosk web --print-url` (another process) can mint a token the
 *   running host accepts, without talking to it.
 * - A launch token is `<nonce>.<expiry>.<mac>`, signed together with the
 *   running host's instance id (new at every start): it works once, for
 *   LAUNCH_TOKEN_TTL_MS, and only with the host that was running when it was
 *   minted.
 * - A session cookie is `<session id>.<mac>`: it stays valid while the
 *   secret does, so a door browser keeps working across host restarts.
 *   Deleting the launch file (host stopped) ends every session.
 *
 * Nothing here logs or puts a token, cookie or the secret into a message.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { lstat, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const LAUNCH_FILE_NAME = 'web-host.json';
/** How long a launch token may wait to be used. */
export const LAUNCH_TOKEN_TTL_MS = 15 * 60_000;
const B64URL = /^[A-Za-z0-9_-]+$/;

export function launchFilePath(dataDir: string): string {
  return join(dataDir, LAUNCH_FILE_NAME);
}

/** What the launch file holds. `instance`, `url` and `pid` are there only while a host runs. */
export interface LaunchFile {
  version: 1;
  /** base64url, 32 bytes. */
  secret: string;
  instance?: string;
  url?: string;
  pid?: number;
}

export type RedeemResult = 'ok' | 'invalid' | 'expired' | 'used';

function mac(secret: Buffer, ...parts: string[]): string {
  return createHmac('sha256', secret).update(parts.join('\0')).digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A launch token for the host `instance`, valid until now + ttl. Pure apart from the nonce. */
export function mintLaunchToken(secret: Buffer, instance: string, now = Date.now(), ttlMs = LAUNCH_TOKEN_TTL_MS): string {
  const nonce = randomBytes(16).toString('base64url');
  const expiry = Math.floor((now + ttlMs) / 1000).toString(36);
  return `${nonce}.${expiry}.${mac(secret, 'launch', instance, nonce, expiry)}`;
}

export function launchUrlFor(baseUrl: string, token: string): string {
  const url = new URL(baseUrl);
  url.search = `?token=${token}`;
  return url.href;
}

/** The running host's side: redeems launch tokens (once each) and signs and checks session cookies. */
export class SessionAuthority {
  /** Nonces of redeemed tokens, with their expiry (ms): a token is remembered as long as it could be valid. */
  private readonly redeemed = new Map<string, number>();

  constructor(
    private readonly secret: Buffer,
    readonly instance: string,
  ) {}

  /** For the launch file only. */
  exportSecret(): string {
    return this.secret.toString('base64url');
  }

  mintLaunchToken(now = Date.now()): string {
    return mintLaunchToken(this.secret, this.instance, now);
  }

  redeem(token: string, now = Date.now()): RedeemResult {
    const parts = token.split('.');
    if (parts.length !== 3 || token.length > 200) return 'invalid';
    const [nonce, expiry, signature] = parts as [string, string, string];
    if (!B64URL.test(nonce) || !/^[0-9a-z]{1,10}$/.test(expiry) || !B64URL.test(signature)) return 'invalid';
    if (!sameText(signature, mac(this.secret, 'launch', this.instance, nonce, expiry))) return 'invalid';
    const expiresAt = parseInt(expiry, 36) * 1000;
    for (const [seen, until] of this.redeemed) if (until < now) this.redeemed.delete(seen);
    if (this.redeemed.has(nonce)) return 'used';
    if (expiresAt < now) return 'expired';
    this.redeemed.set(nonce, expiresAt);
    return 'ok';
  }

  /** A new session: its id (for per-session limits) and the cookie value. */
  newSession(): { id: string; cookie: string } {
    const id = randomBytes(16).toString('base64url');
    return { id, cookie: `${id}.${mac(this.secret, 'session', id)}` };
  }

  /** The session id of a cookie value, or null when it is not one of ours. */
  sessionOf(cookie: string): string | null {
    const dot = cookie.indexOf('.');
    if (dot <= 0 || cookie.length > 200) return null;
    const id = cookie.slice(0, dot);
    const signature = cookie.slice(dot + 1);
    if (!B64URL.test(id) || !B64URL.test(signature)) return null;
    return sameText(signature, mac(this.secret, 'session', id)) ? id : null;
  }
}

/** Why a launch file cannot be trusted (for the log), or null. Windows has no POSIX modes. */
async function looseness(path: string): Promise<string | null> {
  const info = await lstat(path);
  if (!info.isFile()) return 'it is not a regular file';
  if (process.platform === 'win32') return null;
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) return 'it belongs to another user';
  if ((info.mode & 0o077) !== 0) return `others could read it (mode ${(info.mode & 0o777).toString(8).padStart(4, '0')})`;
  return null;
}

function parseLaunchFile(text: string): LaunchFile | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const file = value as Record<string, unknown>;
  if (
    file.version !== 1 ||
    typeof file.secret !== 'string' ||
    !B64URL.test(file.secret) ||
    Buffer.from(file.secret, 'base64url').length !== 32
  )
    return null;
  return {
    version: 1,
    secret: file.secret,
    ...(typeof file.instance === 'string' && B64URL.test(file.instance) ? { instance: file.instance } : {}),
    ...(typeof file.url === 'string' ? { url: file.url } : {}),
    ...(Number.isSafeInteger(file.pid) ? { pid: file.pid as number } : {}),
  };
}

/** Writes the file as 0600 via a temporary file and a rename, so no reader sees half of it and no other mode ever exists. */
export async function writeLaunchFile(path: string, content: LaunchFile): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, JSON.stringify(content, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/**
 * The secret in the launch file, or a new one when there is none or the file
 * cannot be trusted (then every earlier session ends; the log says why,
 * without the secret).
 */
export async function loadOrCreateSecret(path: string, log: (line: string) => void): Promise<Buffer> {
  let problem: string | null = null;
  try {
    problem = await looseness(path);
    if (!problem) {
      const file = parseLaunchFile(await readFile(path, 'utf8'));
      if (file) return Buffer.from(file.secret, 'base64url');
      problem = 'it is damaged';
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      problem = `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (problem)
    log(`the browser host's launch file ${path} was not used: ${problem}. Made a new secret: browsers must open a new launch URL.`);
  return randomBytes(32);
}

export class PrintUrlError extends Error {
  override name = 'PrintUrlError';
}

/**
 * `ticket-kiosk web --print-url`: a new launch URL for the host running on
 * `dataDir`, minted from its launch file. Throws PrintUrlError, saying what
 * to do, when no host runs there.
 */
export async function printLaunchUrl(dataDir: string, options: { now?: number; timeoutMs?: number } = {}): Promise<string> {
  const path = launchFilePath(dataDir);
  const noHost = `no browser host is running for ${dataDir}: start one with \`ticket-kiosk web --data ${dataDir}\``;
  let text: string;
  try {
    const problem = await looseness(path);
    if (problem) throw new PrintUrlError(`${path} cannot be trusted: ${problem}. Restart the host: it makes a new one.`);
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof PrintUrlError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new PrintUrlError(`${noHost} (there is no ${path})`);
    throw new PrintUrlError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const file = parseLaunchFile(text);
  if (!file) throw new PrintUrlError(`${path} is damaged. Restart the host: it writes a new one.`);
  if (!file.instance || !file.url || file.pid === undefined || !processAlive(file.pid)) throw new PrintUrlError(noHost);
  // The pid may have been reused after a crash: the host must also answer at its address.
  const answered = await fetch(new URL('/kiosk-host.js', file.url), { signal: AbortSignal.timeout(options.timeoutMs ?? 3000) }).then(
    (response) => response.ok,
    () => false,
  );
  if (!answered) throw new PrintUrlError(`${noHost} (nothing answers at ${file.url})`);
  return launchUrlFor(file.url, mintLaunchToken(Buffer.from(file.secret, 'base64url'), file.instance, options.now));
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * For programs that drive the host (tests, benchmarks, the demo's terminal
 * scanner): trades a launch URL for a session, as a browser does. Returns the
 * Cookie header to send with API calls.
 */
export async function openSession(launchUrl: string): Promise<string> {
  const response = await fetch(launchUrl, { redirect: 'manual' });
  await response.body?.cancel();
  const setCookie = response.headers.get('set-cookie');
  if (response.status !== 303 || !setCookie) throw new Error(`the launch URL was refused (HTTP ${response.status})`);
  return setCookie.split(';')[0]!;
}
