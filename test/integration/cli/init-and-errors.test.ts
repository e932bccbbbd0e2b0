/** `init`, the data dir's file modes, and the contract's failure report for each kind of mistake. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASE_URL, cliFailure, cliJson, createEvent, initIssuer, runCli, scratchDir } from '../../support/cli-harness.js';

const mode = (file: string): number => fs.statSync(file).mode & 0o777;

describe('init', () => {
  it('creates the data dir, database and first key, and prints {issuer, name, kid}', async () => {
    const data = path.join(scratchDir(), 'issuer-data');
    const result = await cliJson(['init', '--data', data, '--base-url', BASE_URL, '--name', 'Test Issuer']);
    expect(Object.keys(result)).toEqual(['issuer', 'name', 'kid']);
    expect(result).toEqual({ issuer: BASE_URL, name: 'Test Issuer', kid: expect.stringMatching(/^[0-9a-f]{8}$/) });

    // Private material: the data dir and its folders 0700, the private key and the database 0600.
    expect(mode(data)).toBe(0o700);
    expect(mode(path.join(data, 'keys'))).toBe(0o700);
    expect(mode(path.join(data, 'keys', `${result.kid as string}.key`))).toBe(0o600);
    expect(mode(path.join(data, 'issuer.db'))).toBe(0o600);
  });

  it('takes the data dir from $TICKET_ISSUER_DATA when --data is absent', async () => {
    const data = path.join(scratchDir(), 'from-env');
    const result = await cliJson(['init', '--base-url', BASE_URL, '--name', 'Env Issuer'], { TICKET_ISSUER_DATA: data });
    expect(result.name).toBe('Env Issuer');
    expect(fs.existsSync(path.join(data, 'issuer.db'))).toBe(true);
  });

  it('refuses to overwrite an existing issuer, and leaves it as it was', async () => {
    const { data, kid } = await initIssuer();
    const failure = await cliFailure(['init', '--data', data, '--base-url', 'https://other.example.com', '--name', 'Other']);
    expect(failure.code).toBe('ALREADY_INITIALISED');
    expect(failure.message).toContain('refusing to overwrite');
    expect(fs.readdirSync(path.join(data, 'keys'))).toEqual([`${kid}.key`]);
  });

  it.each([
    ['http://tickets.example.com', 'must use https://'],
    ['https://tickets.example.com/', 'must not end with a slash'],
    ['tickets.example.com', 'is not a URL'],
    ['https://tickets.example.com?x=1', 'query'],
  ])('rejects the base URL %s and creates nothing', async (baseUrl, advice) => {
    const data = path.join(scratchDir(), 'issuer-data');
    const failure = await cliFailure(['init', '--data', data, '--base-url', baseUrl, '--name', 'X']);
    expect(failure.code).toBe('INVALID_BASE_URL');
    expect(failure.message).toContain(advice);
    expect(fs.existsSync(data)).toBe(false);
  });

  it('accepts http:// on loopback, for development', async () => {
    const data = path.join(scratchDir(), 'issuer-data');
    const result = await cliJson(['init', '--data', data, '--base-url', 'http://127.0.0.1:8080', '--name', 'Dev']);
    expect(result.issuer).toBe('http://127.0.0.1:8080');
  });
});

describe('failures follow the contract (exit code, one stderr line, JSON error on stdout)', () => {
  it.each(
    [
      ['event', 'create', '--name', 'N', '--date', '2026-05-01T19:30:00Z', '--venue', 'V'],
      ['event', 'list'],
      ['ticket', 'issue', '--event', 'E'],
      ['ticket', 'show', 'T'],
      ['ticket', 'revoke', 'T'],
      ['scanner', 'setup', '--event', 'E'],
      ['scanner', 'list'],
      ['scanner', 'revoke', 'K'],
      ['scanner', 'revoke-setup', 'T'],
      ['key', 'rotate'],
      ['checkins', 'export', '--event', 'E'],
      ['serve'],
    ].map((args) => [args.join(' '), args] as const),
  )('%s on a data dir that was never initialised → NOT_INITIALISED', async (_name, args) => {
    const data = path.join(scratchDir(), 'nothing-here');
    const failure = await cliFailure([...args, '--data', data]);
    expect(failure.code).toBe('NOT_INITIALISED');
    expect(failure.exitCode).toBe(1);
    expect(failure.message).toContain('ticket-issuer init');
    expect(fs.existsSync(data)).toBe(false);
  });

  it('unknown event, unknown ticket', async () => {
    const { data } = await initIssuer();
    expect((await cliFailure(['ticket', 'issue', '--data', data, '--event', '01HZZZZZZZZZZZZZZZZZZZZZZZ'])).code).toBe('EVENT_NOT_FOUND');
    expect((await cliFailure(['scanner', 'setup', '--data', data, '--event', 'nope'])).code).toBe('EVENT_NOT_FOUND');
    expect((await cliFailure(['checkins', 'export', '--data', data, '--event', 'nope'])).code).toBe('EVENT_NOT_FOUND');
    expect((await cliFailure(['ticket', 'show', '--data', data, 'nope'])).code).toBe('TICKET_NOT_FOUND');
    expect((await cliFailure(['ticket', 'revoke', '--data', data, 'nope'])).code).toBe('TICKET_NOT_FOUND');
  });

  it.each(['2026-02-30T10:00:00Z', '2026-05-01', '2026-05-01T19:30:00', 'tomorrow', '2026-13-01T10:00:00Z', '2026-05-01T24:00:00Z'])(
    'rejects the date %s with INVALID_DATE',
    async (date) => {
      const { data } = await initIssuer();
      const failure = await cliFailure(['event', 'create', '--data', data, '--name', 'N', '--date', date, '--venue', 'V']);
      expect(failure.code).toBe('INVALID_DATE');
      expect(failure.message).toContain('--date');
      expect(failure.message).toContain('2026-05-01T19:30:00Z');
    },
  );

  it('rejects an event that ends before it starts, and a bad --count or --expires', async () => {
    const { data } = await initIssuer();
    const ends = await cliFailure([
      'event',
      'create',
      '--data',
      data,
      '--name',
      'N',
      '--date',
      '2026-05-01T19:30:00Z',
      '--ends',
      '2026-05-01T18:00:00Z',
      '--venue',
      'V',
    ]);
    expect(ends.code).toBe('INVALID_DATE');
    const event = await createEvent(data);
    expect((await cliFailure(['ticket', 'issue', '--data', data, '--event', event.eid, '--count', '0'])).code).toBe('INVALID_ARGUMENT');
    expect((await cliFailure(['ticket', 'issue', '--data', data, '--event', event.eid, '--count', 'ten'])).code).toBe('INVALID_ARGUMENT');
    expect((await cliFailure(['ticket', 'issue', '--data', data, '--event', event.eid, '--expires', 'soon'])).code).toBe('INVALID_DATE');
  });

  it('command-line mistakes are USAGE errors with exit code 2', async () => {
    const missing = await cliFailure(['ticket', 'issue']);
    expect(missing).toMatchObject({ code: 'USAGE', exitCode: 2 });
    expect(missing.message).toContain('--event');
    expect((await cliFailure(['ticket', 'issue', '--event', 'E', '--bogus'])).code).toBe('USAGE');
    expect((await cliFailure(['no-such-command'])).code).toBe('USAGE');
    expect((await cliFailure(['ticket'])).code).toBe('USAGE');
  });

  it('without --json a failure prints only the one-line reason on stderr, nothing on stdout', async () => {
    const result = await runCli(['ticket', 'show', 'T', '--data', path.join(scratchDir(), 'none')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^ticket-issuer: no issuer data in /);
  });

  it('--help prints usage on stdout and succeeds', async () => {
    const result = await runCli(['scanner', 'setup', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--key-expires');
  });
});
