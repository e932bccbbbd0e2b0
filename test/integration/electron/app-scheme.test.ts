/**
 * The kiosk:// scheme's file resolution (main/electron/app-scheme.ts): only
 * files inside the built renderer folder, however a request spells its path.
 * A real folder on disk with a secret file beside it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_PAGE_URL, contentTypeOf, resolveAppFile, serveAppFile } from '../../../main/electron/app-scheme.js';
import { CONTENT_SECURITY_POLICY } from '../../../main/host/content-security-policy.js';
import { isAllowedFrameNavigation, isAllowedNavigation, isTrustedSender } from '../../../main/electron/security.js';

const base = mkdtempSync(join(tmpdir(), 'app-scheme-'));
const root = join(base, 'dist');
mkdirSync(join(root, 'assets'), { recursive: true });
writeFileSync(join(root, 'index.html'), '<!doctype html><title>kiosk</title>');
writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
writeFileSync(join(base, 'secret.txt'), 'api key');
writeFileSync(join(base, 'dist-evil.txt'), 'sibling');

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('resolveAppFile', () => {
  it('serves the page and its assets', () => {
    expect(resolveAppFile(APP_PAGE_URL, root)).toBe(join(root, 'index.html'));
    expect(resolveAppFile('kiosk://app/', root)).toBe(join(root, 'index.html'));
    expect(resolveAppFile('kiosk://app/assets/app.js?v=1#x', root)).toBe(join(root, 'assets', 'app.js'));
  });

  it.each([
    ['a parent segment', 'kiosk://app/../secret.txt'],
    ['a parent segment inside the path', 'kiosk://app/assets/../../secret.txt'],
    ['an encoded parent segment', 'kiosk://app/%2e%2e/secret.txt'],
    ['an encoded parent segment, upper case', 'kiosk://app/%2E%2E/secret.txt'],
    ['an encoded slash', 'kiosk://app/assets%2f..%2f..%2fsecret.txt'],
    ['an encoded backslash', 'kiosk://app/..%5csecret.txt'],
    ['a backslash', 'kiosk://app/..\\secret.txt'],
    ['a NUL', 'kiosk://app/index.html%00.js'],
    ['an absolute path', `kiosk://app/${join(base, 'secret.txt')}`],
    ['a doubled slash to an absolute path', `kiosk://app//${join(base, 'secret.txt').replace(/^\//, '')}`],
    ['a drive letter', 'kiosk://app/C:/Windows/win.ini'],
    ['a sibling folder with the same prefix', 'kiosk://app/../dist-evil.txt'],
    ['another host', 'kiosk://evil/index.html'],
    ['a user and port', 'kiosk://user@app:99/index.html'],
    ['another scheme', `file://${join(root, 'index.html')}`],
    ['the web', 'https://app/index.html'],
    ['a folder', 'kiosk://app/assets'],
    ['a missing file', 'kiosk://app/nothing.js'],
    ['bad percent-encoding', 'kiosk://app/%E0%A4%A.js'],
    ['not a URL', 'kiosk app index'],
  ])('refuses %s', (_label, url) => {
    expect(resolveAppFile(url, root)).toBeNull();
  });

  it('answers with the content type, the CSP and nosniff, or 404', async () => {
    const page = serveAppFile(APP_PAGE_URL, root);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(serveAppFile('kiosk://app/assets/app.js', root).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const refused = serveAppFile('kiosk://app/%2e%2e/secret.txt', root);
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain('api key');
    expect(contentTypeOf('x.unknown')).toBe('application/octet-stream');
  });
});

describe('navigation and IPC on kiosk://', () => {
  it('our page is kiosk://app/index.html, whatever its query or hash; nothing else is', () => {
    expect(isAllowedNavigation('kiosk://app/index.html#ready', APP_PAGE_URL)).toBe(true);
    expect(isAllowedNavigation('kiosk://app/other.html', APP_PAGE_URL)).toBe(false);
    expect(isAllowedNavigation('kiosk://evil/index.html', APP_PAGE_URL)).toBe(false);
    expect(isAllowedNavigation('https://app/index.html', APP_PAGE_URL)).toBe(false);
    expect(isTrustedSender('kiosk://app/index.html', APP_PAGE_URL)).toBe(true);
    expect(isTrustedSender('file:///index.html', APP_PAGE_URL)).toBe(false);
  });

  it('frames never navigate; the main frame only to our page', () => {
    expect(isAllowedFrameNavigation(APP_PAGE_URL, true, APP_PAGE_URL)).toBe(true);
    expect(isAllowedFrameNavigation(APP_PAGE_URL, false, APP_PAGE_URL)).toBe(false);
    expect(isAllowedFrameNavigation('https://evil.example/', true, APP_PAGE_URL)).toBe(false);
    expect(CONTENT_SECURITY_POLICY).toContain("frame-src 'none'");
  });
});
