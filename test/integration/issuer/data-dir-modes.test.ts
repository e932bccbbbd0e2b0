/**
 * The issuer's data directory is private at every start (docs/issuer.md
 * "The data directory"): a folder or file others could read (an older
 * version, a copy with a loose umask) is tightened by `serve`, with a log line.
 */
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../issuer/server.js';
import { createIssuerFixture, type IssuerFixture } from '../../support/issuer-fixture.js';
import { captureLog } from '../../support/unit/log-capture.js';

let fx: IssuerFixture | null = null;
let server: RunningServer | null = null;

afterEach(async () => {
  await server?.close();
  server = null;
  fx?.cleanup();
  fx = null;
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe('issuer data directory modes', () => {
  it('serve tightens folders to 0700 and files to 0600, and says so; tls/serving.json is written private', async () => {
    fx = createIssuerFixture();
    const { root, database, keysDir, tlsDir } = fx.dataDir;
    mkdirSync(tlsDir, { recursive: true });
    writeFileSync(join(tlsDir, 'serving.json'), '{"mode":"plain-http"}\n', { mode: 0o644 });
    chmodSync(root, 0o755);
    chmodSync(keysDir, 0o755);
    chmodSync(database, 0o644);
    chmodSync(join(tlsDir, 'serving.json'), 0o644);
    const log = captureLog();
    server = await startServer({ dataDir: root, host: '127.0.0.1', port: 0, plainHttp: true, logger: log.logger, handleSignals: false });
    expect(mode(root)).toBe(0o700);
    expect(mode(keysDir)).toBe(0o700);
    expect(mode(database)).toBe(0o600);
    expect(mode(join(tlsDir, 'serving.json'))).toBe(0o600);
    const changes = log
      .lines()
      .filter((line) => line['msg'] === 'data directory permissions were too open; tightened')
      .map((line) => String(line['change']));
    expect(changes).toEqual(expect.arrayContaining([`${root}: 0755 → 0700`, `${database}: 0644 → 0600`]));
  });

  it('a private data directory is left as it is, without a word', async () => {
    fx = createIssuerFixture();
    const log = captureLog();
    server = await startServer({
      dataDir: fx.dataDir.root,
      host: '127.0.0.1',
      port: 0,
      plainHttp: true,
      logger: log.logger,
      handleSignals: false,
    });
    expect(log.text()).not.toContain('tightened');
    expect(mode(fx.dataDir.root)).toBe(0o700);
  });
});
