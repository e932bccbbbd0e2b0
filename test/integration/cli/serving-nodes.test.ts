/**
 * Serving nodes (docs/issuer.md "Serving nodes", "Where the database is"): node-config writes a node dir
 * without the signing keys; two `serve` processes started from two node dirs share the issuer's SQLite
 * database with exactly one valid per ticket, and see a revocation made with the CLI on the issuer's data dir
 * on their next request; TICKET_ISSUER_DATABASE_URL overrides the dir's record; PostgreSQL is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliFailure, cliJson, createEvent, initIssuer, issueTickets, runCli, scratchDir, serveCli } from '../../support/cli-harness.js';
import { checkIn, enroll } from '../../support/issuer-http.js';

interface NodeConfigJson {
  node: string;
  issuer: string;
  database: string;
  updated: boolean;
  files: string[];
}

const mode = (file: string): number => fs.statSync(file).mode & 0o777;

describe('node-config', () => {
  it('writes database.json, tls/ and node.json with private modes, never keys/; prints what it wrote, never the TLS key', async () => {
    const { data } = await initIssuer();
    const to = path.join(scratchDir(), 'node-a');
    const written = await cliJson<NodeConfigJson>(['node-config', '--data', data, '--to', to]);
    expect(written).toEqual({
      node: to,
      issuer: 'https://tickets.example.com',
      database: path.join(data, 'issuer.db'),
      updated: false,
      files: [
        path.join(to, 'tls', 'cert.pem'),
        path.join(to, 'tls', 'key.pem'),
        path.join(to, 'database.json'),
        path.join(to, 'node.json'),
      ],
    });
    expect(fs.readdirSync(to).sort()).toEqual(['database.json', 'node.json', 'tls']);
    expect(fs.existsSync(path.join(to, 'keys'))).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(to, 'database.json'), 'utf8'))).toEqual({ sqlite: path.join(data, 'issuer.db') });
    expect(mode(to)).toBe(0o700);
    expect(mode(path.join(to, 'tls'))).toBe(0o700);
    for (const file of written.files) expect(mode(file), file).toBe(0o600);
    // The node presents the issuer's own certificate, so setup codes pin the same fingerprint on every node.
    expect(fs.readFileSync(path.join(to, 'tls', 'cert.pem'), 'utf8')).toBe(fs.readFileSync(path.join(data, 'tls', 'cert.pem'), 'utf8'));

    // Again on the same node dir: updated in place. The human output names files, never the key's contents.
    const again = await runCli(['node-config', '--data', data, '--to', to]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Updated the serving node dir ${to}`);
    expect(again.stdout).not.toContain('PRIVATE KEY');
    expect(again.stdout).not.toContain(fs.readFileSync(path.join(to, 'tls', 'key.pem'), 'utf8').split('\n')[1]!);
  });

  it('refuses the data dir itself, a non-empty foreign dir and a node dir of another issuer', async () => {
    const { data } = await initIssuer();
    expect(await cliFailure(['node-config', '--data', data, '--to', data])).toMatchObject({ code: 'NODE_TARGET_REFUSED' });
    const foreign = scratchDir();
    fs.writeFileSync(path.join(foreign, 'notes.txt'), 'mine');
    expect(await cliFailure(['node-config', '--data', data, '--to', foreign])).toMatchObject({
      code: 'NODE_TARGET_REFUSED',
      message: expect.stringContaining('not empty') as string,
    });
    expect(fs.readdirSync(foreign)).toEqual(['notes.txt']);

    const other = await initIssuer('https://other.example.com');
    const node = path.join(scratchDir(), 'node');
    await cliJson(['node-config', '--data', other.data, '--to', node]);
    expect(await cliFailure(['node-config', '--data', data, '--to', node])).toMatchObject({
      code: 'NODE_TARGET_REFUSED',
      message: expect.stringContaining('another issuer') as string,
    });
    expect(JSON.parse(fs.readFileSync(path.join(node, 'database.json'), 'utf8'))).toEqual({ sqlite: path.join(other.data, 'issuer.db') });
  });

  it('admin commands refuse a node dir: they belong where the signing keys are', async () => {
    const { data } = await initIssuer();
    const event = await createEvent(data);
    const node = path.join(scratchDir(), 'node');
    await cliJson(['node-config', '--data', data, '--to', node]);
    for (const args of [
      ['ticket', 'issue', '--event', event.eid],
      ['key', 'rotate'],
      ['event', 'list'],
      ['migrate'],
      ['backup', '--to', path.join(scratchDir(), 'b')],
      ['node-config', '--to', path.join(scratchDir(), 'n2')],
    ]) {
      const failure = await cliFailure([...args, '--data', node]);
      expect(failure.code, args.join(' ')).toBe('SERVING_NODE_DIR');
      expect(failure.message).toContain("serving node's directory");
      expect(failure.message).toContain("run admin commands on the issuer's data dir");
    }
    expect(fs.existsSync(path.join(node, 'keys'))).toBe(false);
  });
});

describe('two serve processes from two node dirs on one SQLite database', () => {
  it('30 concurrent check-ins of one ticket split over both: exactly one valid; a CLI revocation is refused by both on the next request', async () => {
    const { data } = await initIssuer('http://127.0.0.1:8080');
    const event = await createEvent(data);
    const nodes = [path.join(scratchDir(), 'node-a'), path.join(scratchDir(), 'node-b')];
    for (const node of nodes) await cliJson(['node-config', '--data', data, '--to', node]);
    const servers = await Promise.all(
      nodes.map((node) => serveCli(['--data', node, '--plain-http', '--host', '127.0.0.1', '--port', '0', '--trust-proxy', '127.0.0.1'])),
    );
    for (const node of nodes) expect(fs.existsSync(path.join(node, 'keys'))).toBe(false);
    const scanners = [await enroll(servers[0]!.url, data, event.eid), await enroll(servers[1]!.url, data, event.eid)];

    const [raced, revoked] = (await issueTickets(data, event.eid, 2)) as [string, string];
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => checkIn(servers[i % 2]!.url, scanners[i % 2]!, raced, event.eid)),
    );
    expect(statuses.filter((s) => s === 'valid')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'already_used')).toHaveLength(29);

    await cliJson(['ticket', 'revoke', '--data', data, revoked]);
    expect(await checkIn(servers[0]!.url, scanners[0]!, revoked, event.eid)).toBe('revoked');
    expect(await checkIn(servers[1]!.url, scanners[1]!, revoked, event.eid)).toBe('revoked');
  });
});

describe('where the database is', () => {
  it('a data dir without database.json keeps <data>/issuer.db; database.json moves it; TICKET_ISSUER_DATABASE_URL overrides the record', async () => {
    const a = await initIssuer('https://a.example.com');
    const b = await initIssuer('https://b.example.com');
    await createEvent(a.data);
    const listed = async (data: string, env: NodeJS.ProcessEnv = {}) =>
      (await cliJson<{ events: unknown[] }>(['event', 'list', '--data', data], env)).events.length;
    expect(await listed(a.data)).toBe(1);
    expect(await listed(b.data)).toBe(0);

    // A dir whose record names a's database: its commands work on a's issuer.
    const moved = scratchDir();
    fs.writeFileSync(path.join(moved, 'database.json'), JSON.stringify({ sqlite: path.join(a.data, 'issuer.db') }), { mode: 0o600 });
    expect(await listed(moved)).toBe(1);
    // The environment wins over the record, in both forms.
    expect(await listed(moved, { TICKET_ISSUER_DATABASE_URL: `sqlite://${path.join(b.data, 'issuer.db')}` })).toBe(0);
    expect(await listed(a.data, { TICKET_ISSUER_DATABASE_URL: path.join(b.data, 'issuer.db') })).toBe(0);

    // serve on a node dir follows the override too.
    const node = path.join(scratchDir(), 'node');
    await cliJson(['node-config', '--data', a.data, '--to', node]);
    const server = await serveCli(['--data', node, '--plain-http', '--host', '127.0.0.1', '--port', '0'], {
      TICKET_ISSUER_DATABASE_URL: `sqlite://${path.join(b.data, 'issuer.db')}`,
    });
    const discovery = (await (await fetch(`${server.url}/.well-known/ticket-issuer.json`)).json()) as { issuer: string };
    expect(discovery.issuer).toBe('https://b.example.com');
  });

  it('a PostgreSQL URL with a password is refused without echoing it; an unreachable server is named clearly; a relative location is refused', async () => {
    const { data } = await initIssuer();
    const withPassword = await cliFailure(['event', 'list', '--data', data], {
      TICKET_ISSUER_DATABASE_URL: 'postgres://tickets:s3cret-pw@db.internal:5432/tickets',
    });
    expect(withPassword.code).toBe('DATABASE_LOCATION_INVALID');
    expect(withPassword.message).toContain('PGPASSWORD');
    expect(withPassword.message).not.toContain('s3cret-pw');

    const recorded = scratchDir();
    fs.writeFileSync(
      path.join(recorded, 'database.json'),
      JSON.stringify({ postgres: 'postgresql://tickets:s3cret-pw@db.internal/tickets' }),
    );
    const fromRecord = await cliFailure(['event', 'list', '--data', recorded]);
    expect(fromRecord.code).toBe('DATABASE_LOCATION_INVALID');
    expect(fromRecord.message).not.toContain('s3cret-pw');

    expect((await cliFailure(['event', 'list', '--data', data], { TICKET_ISSUER_DATABASE_URL: 'issuer.db' })).code).toBe(
      'DATABASE_LOCATION_INVALID',
    );
    // Port 1 on loopback: nothing listens there. The data dir has keys/, so it counts as made; the database does not answer.
    const unreachable = await cliFailure(['event', 'list', '--data', data], {
      TICKET_ISSUER_DATABASE_URL: 'postgres://tickets@127.0.0.1:1/tickets',
      PGPASSWORD: 's3cret-pw',
    });
    expect(unreachable.code).toBe('DATABASE_UNREACHABLE');
    expect(unreachable.message).toContain('127.0.0.1:1/tickets');
    expect(unreachable.message).not.toContain('s3cret-pw');
  });
});
