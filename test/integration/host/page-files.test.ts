/**
 * The page-file resolver both hosts share (main/host/page-files.ts): the
 * kiosk:// scheme and the browser host name the same files and refuse the
 * same spellings. A real folder on disk with a secret file beside it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contentTypeOf, resolvePageFile } from '../../../main/host/page-files.js';

const base = mkdtempSync(join(tmpdir(), 'page-files-'));
const root = join(base, 'kiosk-page');
mkdirSync(join(root, 'assets'), { recursive: true });
writeFileSync(join(root, 'index.html'), '<!doctype html><title>kiosk</title>');
writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
writeFileSync(join(base, 'secret.txt'), 'api key');

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('resolvePageFile', () => {
  it('names the page and its assets; / is index.html', () => {
    expect(resolvePageFile('/', root)).toBe(join(root, 'index.html'));
    expect(resolvePageFile('/index.html', root)).toBe(join(root, 'index.html'));
    expect(resolvePageFile('/assets/app.js', root)).toBe(join(root, 'assets', 'app.js'));
  });

  it.each([
    '/../secret.txt',
    '/..%2fsecret.txt',
    '/%2e%2e/secret.txt',
    '/assets/..\\..\\secret.txt',
    '/index.html%00.js',
    '/%E0%A4%A',
    '/assets',
    '/assets/',
    '/missing.js',
    '/./index.html',
  ])('refuses %j', (path) => expect(resolvePageFile(path, root)).toBeNull());

  it('types what the page is made of', () => {
    expect(contentTypeOf('index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeOf('app.JS')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('x.unknown')).toBe('application/octet-stream');
  });
});
