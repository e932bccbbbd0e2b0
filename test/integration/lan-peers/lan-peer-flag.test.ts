/**
 * `ticket-kiosk web --lan-peer HOST[:PORT]` (docs/kiosk.md "Kiosks on one LAN"), through the built CLI: the flag is
 * offered, and a text that is not a peer stops the command before anything starts (no socket, no keyring), saying
 * the expected form. The peers reaching the LAN is lan-peers.test.ts (kiosk-config.json's lan.peers, the same list).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../../dist/main/cli.js', import.meta.url));
const run = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, TICKET_KIOSK_LAN: 'off' } });

describe('ticket-kiosk web --lan-peer', () => {
  it('is listed in the help, repeatable', () => {
    const help = run('web', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/--lan-peer <host\[:port\]>\s+another kiosk to warn on the LAN/);
    expect(help.stdout).toContain('(repeatable)');
  });

  it('refuses a text that is not HOST[:PORT], naming it and the expected form', () => {
    const bad = run('web', '--lan-peer', '10.0.4.17:99999');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('"10.0.4.17:99999" is not a LAN peer: expected HOST or HOST:PORT');
    expect(bad.stdout).not.toContain('Ticket kiosk running');
  });
});
