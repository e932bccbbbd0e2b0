/**
 * The kiosk page's Content-Security-Policy (main/host/content-security-policy.ts)
 * against the page it protects: renderer/index.html, read from disk. The
 * policy itself is unit-tested in test/unit/electron/security.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../../main/host/content-security-policy.js';

describe('Content-Security-Policy', () => {
  it("repeats every directive of the renderer's meta tag exactly", () => {
    const html = readFileSync('renderer/index.html', 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(meta, 'renderer/index.html must carry the CSP as a meta tag').toBeDefined();
    const ours = CONTENT_SECURITY_POLICY.split(';').map((d) => d.trim());
    for (const directive of meta!.split(';').map((d) => d.trim())) expect(ours).toContain(directive);
  });
});
