/**
 * The admin dashboard's token from the command line (docs/issuer.md "Admin
 * dashboard"): printed once by `init` to a person, never in `init --json`
 * (the contract's document stays exactly {issuer, name, kid}), made anew by
 * `admin-token reset`, or given to `serve --admin-token-file`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFailure, cliJson, initIssuer, LOOPBACK_SERVE, openDb, runCli, scratchDir, serveCli } from '../../support/cli-harness.js';

const TOKEN = /\btva_[A-Za-z0-9_-]{43}\b/g;

const session = (url: string, token: string) => fetch(`${url}/admin/api/session`, { headers: { authorization: `Bearer ${token}` } });

describe('init', () => {
  it('prints an admin token once to a person, stores only its hash, and the dashboard accepts it', async () => {
    const data = path.join(scratchDir(), 'issuer-data');
    const result = await runCli(['init', '--data', data, '--base-url', 'http://127.0.0.1:8080', '--name', 'Human Issuer']);
    expect(result.code).toBe(0);
    const tokens = result.stdout.match(TOKEN) ?? [];
    expect(tokens).toHaveLength(1);
    expect(result.stdout).toContain('http://127.0.0.1:8080/admin');
    expect(result.stderr).not.toMatch(TOKEN);

    const db = openDb(data);
    try {
      const row = db.prepare('SELECT token_hash FROM admin_token').get() as { token_hash: string };
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      db.close();
    }
    expect(fs.readFileSync(path.join(data, 'issuer.db')).includes(Buffer.from(tokens[0]!))).toBe(false);

    const server = await serveCli([...LOOPBACK_SERVE, '--data', data]);
    expect(server.stderr()).toContain(`Admin dashboard: ${server.url}/admin`);
    expect(server.stderr()).not.toContain('No admin dashboard token');
    expect((await session(server.url, tokens[0]!)).status).toBe(200);
  });

  it('with --json prints exactly the contract document, no token, and says on stderr how to make one', async () => {
    const data = path.join(scratchDir(), 'issuer-data');
    const result = await runCli(['init', '--data', data, '--base-url', 'http://127.0.0.1:8080', '--name', 'Script Issuer', '--json']);
    expect(result.code).toBe(0);
    expect(Object.keys(JSON.parse(result.stdout) as object)).toEqual(['issuer', 'name', 'kid']);
    expect(result.stdout + result.stderr).not.toMatch(TOKEN);
    expect(result.stderr).toContain('ticket-issuer admin-token reset');

    const server = await serveCli([...LOOPBACK_SERVE, '--data', data]);
    expect(server.stderr()).toContain('No admin dashboard token is set yet');
    const refused = await session(server.url, 'tva_anything-at-all-that-is-long-enough');
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe('admin_token_not_set');

    // Made while serve runs: usable at once, no restart.
    const { admin_token } = await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', data]);
    expect((await session(server.url, admin_token)).status).toBe(200);
  });
});

describe('admin-token reset', () => {
  it('prints a new token ({admin_token, created_at} with --json) that replaces the old one at once', async () => {
    const { data } = await initIssuer('http://127.0.0.1:8080');
    const first = await cliJson<{ admin_token: string; created_at: string }>(['admin-token', 'reset', '--data', data]);
    expect(Object.keys(first)).toEqual(['admin_token', 'created_at']);
    expect(first.admin_token).toMatch(TOKEN);
    expect(Date.parse(first.created_at)).not.toBeNaN();
    const server = await serveCli([...LOOPBACK_SERVE, '--data', data]);
    expect((await session(server.url, first.admin_token)).status).toBe(200);

    const human = await runCli(['admin-token', 'reset', '--data', data]);
    expect(human.code).toBe(0);
    const second = human.stdout.match(TOKEN)![0];
    expect(human.stdout).toContain('shown only now');
    expect((await session(server.url, first.admin_token)).status).toBe(401);
    expect((await session(server.url, second)).status).toBe(200);
  });

  it('refuses a data dir that was never initialised', async () => {
    const failure = await cliFailure(['admin-token', 'reset', '--data', path.join(scratchDir(), 'nothing')]);
    expect(failure.code).toBe('NOT_INITIALISED');
  });
});

describe('serve --admin-token-file', () => {
  it('accepts the token in the file (and only it), and refuses a file whose token is too short', async () => {
    const { data } = await initIssuer('http://127.0.0.1:8080');
    const stored = (await cliJson<{ admin_token: string }>(['admin-token', 'reset', '--data', data])).admin_token;
    const dir = scratchDir();
    const file = path.join(dir, 'admin-token');
    const fromFile = 'a-long-random-token-from-a-secret-manager-0123456789';
    fs.writeFileSync(file, `${fromFile}\n`, { mode: 0o600 });

    const server = await serveCli([...LOOPBACK_SERVE, '--data', data, '--admin-token-file', file]);
    expect(server.stderr()).toContain('(token from --admin-token-file)');
    expect(server.stderr()).not.toContain(fromFile);
    expect((await session(server.url, fromFile)).status).toBe(200);
    expect((await session(server.url, stored)).status).toBe(401);

    const short = path.join(dir, 'short-token');
    fs.writeFileSync(short, 'too-short\n', { mode: 0o600 });
    const failure = await cliFailure(['serve', '--data', data, '--plain-http', '--port', '0', '--admin-token-file', short]);
    expect(failure.code).toBe('INVALID_ARGUMENT');
    expect(failure.message).toContain('at least 32');
    const missing = await cliFailure([
      'serve',
      '--data',
      data,
      '--plain-http',
      '--port',
      '0',
      '--admin-token-file',
      path.join(dir, 'nope'),
    ]);
    expect(missing.message).toContain('ENOENT');
  });
});
