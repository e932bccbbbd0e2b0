/**
 * A throwaway PostgreSQL cluster on a free loopback port, for the integration
 * tests of the PostgreSQL store and its benchmarks (`bench:issuer --store
 * postgres`), each of which starts its own: no shared or pre-existing server
 * is assumed. No vitest here: bench/ compiles it.
 *
 * Each call runs `initdb` into a fresh temp dir and `pg_ctl start` on it, with
 * Debian's `postgresql` package (scripts/install-system-deps.sh). The server
 * listens on 127.0.0.1 only, with `trust` authentication (so the URL carries no
 * password) and its Unix socket inside the temp dir, so nothing outside this
 * process's own dirs and port is touched. Durability is left as PostgreSQL
 * ships it (`fsync` and `synchronous_commit` on): the issuer's exactly-once
 * guarantees and the benchmarks' figures are about durable commits.
 *
 * PostgreSQL refuses to run as root, and CI runs as root: then `initdb` and
 * `pg_ctl` run as the `postgres` system user (`runuser`), which owns the temp
 * dir (mode 0700, as PostgreSQL requires of its data dir's owner).
 *
 * End every pool or client before `stop()`: an immediate shutdown ends their
 * connections, and an idle `pg` client with no 'error' listener then throws.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const execFileAsync = promisify(execFile);

export interface PostgresClusterOptions {
  /** The database created for the caller (default `tickets`). */
  database?: string;
  /** The superuser the URL names (default `tickets`); any name works, authentication is `trust`. */
  user?: string;
  /**
   * `fsync` (default true). Off only where durability is not under test and
   * the speed matters; never for benchmarks or crash tests. Measured on the
   * 2-core dev machine: the start takes the same (~0.9 s), 800 single-row
   * commits over 8 connections took 160 ms with fsync and 65–130 ms without,
   * so a test with a few dozen statements gains nothing from turning it off.
   */
  fsync?: boolean;
  /** More postgresql.conf settings, e.g. `{ max_connections: '200' }` for a benchmark. */
  settings?: Record<string, string>;
  /** The directory holding initdb and pg_ctl (default: the newest installed PostgreSQL). */
  binDir?: string;
  /** How long the server may take to accept connections (default 30 s). */
  startTimeoutMs?: number;
}

export interface PostgresCluster {
  /** `postgres://USER@127.0.0.1:PORT/DATABASE`, no password. */
  url: string;
  host: string;
  port: number;
  user: string;
  database: string;
  /** The temp dir: `data/` (the cluster), `server.log`, the Unix socket. Gone after `stop()`. */
  dir: string;
  /** Stops the server (immediate shutdown: the data is thrown away) and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Restarts the server on the same port, as an operator's restart or a failover would: `fast` ends every
   * connection at once (the clients see 57P01), `immediate` is a crash and a recovery. Resolves when it accepts
   * connections again.
   */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
}

const MISSING_BINARIES =
  'PostgreSQL binaries (initdb, pg_ctl) not found: install the postgresql package: bash scripts/install-system-deps.sh';
const PORT_ATTEMPTS = 3;

/** Clusters started and not yet stopped, so a test process that exits without stopping them still stops them. */
const running = new Set<RunningCluster>();
let exitHandlerRegistered = false;

interface RunningCluster {
  dataDir: string;
  dir: string;
  watchdogPid: number | undefined;
}

/** Starts a fresh cluster; see the file comment. Rejects with the server log's tail if it does not come up. */
export async function startPostgresCluster(options: PostgresClusterOptions = {}): Promise<PostgresCluster> {
  const user = checkedName(options.user ?? 'tickets', 'user');
  const database = checkedName(options.database ?? 'tickets', 'database');
  const binDir = options.binDir ?? findBinDir();
  if (binDir === undefined || !existsSync(join(binDir, 'initdb')) || !existsSync(join(binDir, 'pg_ctl'))) {
    throw new Error(binDir === undefined ? MISSING_BINARIES : `${MISSING_BINARIES} (looked in ${binDir})`);
  }
  const runAs = asPostgresUser();
  const dir = mkdtempSync(join(tmpdir(), 'pg-cluster-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (runAs) {
    // The postgres user creates data/ and server.log in here; root can still read and remove them.
    chownSync(dir, runAs.uid, runAs.gid);
  }
  chmodSync(dir, 0o700);
  const cluster: RunningCluster = { dataDir, dir, watchdogPid: startWatchdog(dir, dataDir) };
  running.add(cluster);
  registerExitHandler();
  try {
    const run = (command: string, args: string[], timeoutMs: number) => runPostgresTool(join(binDir, command), args, dir, runAs, timeoutMs);
    // --no-sync: initdb's own files need no fsync, this cluster never outlives a crash of its machine. Not the server's fsync.
    await run(
      'initdb',
      ['-D', dataDir, '-U', user, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync', '--no-instructions'],
      60_000,
    );
    // Loopback TCP and the private socket only, both trusted: no ::1, no other address (initdb's default also trusts ::1).
    writeAsOwner(join(dataDir, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n', runAs);
    await appendFile(join(dataDir, 'postgresql.conf'), configText(dir, options), 'utf8');

    const timeoutMs = options.startTimeoutMs ?? 30_000;
    let port = 0;
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      try {
        // -w: pg_ctl returns once the postmaster reports it accepts connections (postmaster.pid), or fails.
        await run(
          'pg_ctl',
          ['start', '-D', dataDir, '-l', logFile, '-w', '-t', String(Math.ceil(timeoutMs / 1000)), '-o', `-p ${port}`],
          timeoutMs + 5000,
        );
        break;
      } catch (error) {
        // The port was free a moment ago (free-port.ts); another process may have taken it since: try another.
        if (attempt < PORT_ATTEMPTS && logTail(logFile).includes('Address already in use')) continue;
        throw new Error(
          `PostgreSQL did not start on 127.0.0.1:${port}: ${(error as Error).message}\n--- server.log (tail) ---\n${logTail(logFile)}`,
          {
            cause: error,
          },
        );
      }
    }

    const host = '127.0.0.1';
    await createDatabase({ host, port, user, database: 'postgres' }, database, logFile);
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://${user}@${host}:${port}/${database}`,
      host,
      port,
      user,
      database,
      dir,
      stop: () => (stopped ??= stopCluster(cluster, binDir, runAs)),
      restart: (mode) => run('pg_ctl', ['restart', '-D', dataDir, '-l', logFile, '-m', mode, '-w', '-t', '30', '-o', `-p ${port}`], 40_000),
    };
  } catch (error) {
    await stopCluster(cluster, binDir, runAs);
    throw error;
  }
}

/** The newest installed PostgreSQL's bin dir: Debian's /usr/lib/postgresql/N/bin, else what pg_config says. */
function findBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((name) => /^\d+(\.\d+)?$/.test(name)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(base, version, 'bin');
    if (existsSync(join(bin, 'initdb'))) return bin;
  }
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

interface RunAs {
  uid: number;
  gid: number;
}

/** As root, the postgres system user's ids (PostgreSQL refuses to run as root); otherwise undefined: run as ourselves. */
function asPostgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch (error) {
    throw new Error(`running as root, and there is no postgres system user to run PostgreSQL as: ${MISSING_BINARIES}`, { cause: error });
  }
}

/** Runs initdb or pg_ctl, as the postgres user when we are root; the error carries the tool's output. */
async function runPostgresTool(path: string, args: string[], cwd: string, runAs: RunAs | undefined, timeoutMs: number): Promise<void> {
  const [command, commandArgs] = runAs ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  try {
    // cwd: the temp dir, which the postgres user can enter (it may not read the test's own working directory).
    await execFileAsync(command, commandArgs, { cwd, timeout: timeoutMs, encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    const output = `${stderr ?? ''}${stdout ?? ''}`.trim();
    throw new Error(`${[command, ...commandArgs].join(' ')} failed${output ? `:\n${output}` : `: ${(error as Error).message}`}`, {
      cause: error,
    });
  }
}

/** Replaces a file in the cluster's data dir, keeping it the postgres user's like the rest of data/. */
function writeAsOwner(path: string, text: string, runAs: RunAs | undefined): void {
  writeFileSync(path, text, { encoding: 'utf8', mode: 0o600 });
  if (runAs) chownSync(path, runAs.uid, runAs.gid);
}

function configText(dir: string, options: PostgresClusterOptions): string {
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    // A Unix socket path has at most 107 bytes: under a long TMPDIR, TCP on loopback only (the URL uses TCP anyway).
    unix_socket_directories: Buffer.byteLength(join(dir, '.s.PGSQL.65535')) <= 107 ? dir : '',
    fsync: options.fsync === false ? 'off' : 'on',
    synchronous_commit: 'on',
    ...options.settings,
  };
  const lines = Object.entries(settings).map(([key, value]) => `${key} = '${value.replaceAll("'", "''")}'`);
  return `\n# startPostgresCluster (test/support/postgres-cluster.ts)\n${lines.join('\n')}\n`;
}

async function createDatabase(config: pg.ClientConfig, database: string, logFile: string): Promise<void> {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } catch (error) {
    throw new Error(
      `PostgreSQL started but refused ${config.user}@${config.host}:${config.port}: ${(error as Error).message}\n--- server.log (tail) ---\n${logTail(logFile)}`,
      {
        cause: error,
      },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function stopCluster(cluster: RunningCluster, binDir: string, runAs: RunAs | undefined): Promise<void> {
  if (cluster.watchdogPid !== undefined) killQuietly(cluster.watchdogPid, 'SIGKILL');
  if (existsSync(join(cluster.dataDir, 'postmaster.pid'))) {
    // Immediate: no checkpoint, the data is about to be deleted. -w: the port is closed when this returns.
    await runPostgresTool(
      join(binDir, 'pg_ctl'),
      ['stop', '-D', cluster.dataDir, '-m', 'immediate', '-w', '-t', '30'],
      cluster.dir,
      runAs,
      35_000,
    ).catch(() => stopWithSignal(cluster));
  }
  rmSync(cluster.dir, { recursive: true, force: true, maxRetries: 5 });
  running.delete(cluster);
}

/** The postmaster's pid from postmaster.pid, SIGQUIT (PostgreSQL's immediate shutdown). Synchronous, for the exit handler. */
function stopWithSignal(cluster: RunningCluster): void {
  const pid = Number(readFileIfAny(join(cluster.dataDir, 'postmaster.pid')).split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0) killQuietly(pid, 'SIGQUIT');
}

/**
 * A test process that exits without calling stop() (a failing hook, an
 * uncaught error, process.exit) still stops its clusters here. The 'exit'
 * event cannot wait, so this only signals the postmaster (SIGQUIT: PostgreSQL's
 * immediate shutdown) and tries to remove the dir; the watchdog, left running,
 * removes what the dying server was still writing. A process killed by a
 * signal (SIGKILL, or a SIGTERM/SIGINT nobody handles) never emits 'exit': the
 * watchdog alone covers that.
 */
function registerExitHandler(): void {
  if (exitHandlerRegistered) return;
  exitHandlerRegistered = true;
  process.on('exit', () => {
    for (const cluster of running) {
      stopWithSignal(cluster);
      try {
        rmSync(cluster.dir, { recursive: true, force: true, maxRetries: 5 });
      } catch {
        // Left to the watchdog.
      }
    }
  });
}

/**
 * A small detached shell that outlives this process: once this process is
 * gone, however it died (even SIGKILL), it sends the postmaster SIGQUIT and
 * removes the temp dir, within about a second. It starts before initdb, and
 * keeps looking for postmaster.pid for up to 10 s, because a process killed
 * during `pg_ctl start` leaves pg_ctl to start the server after its death.
 * It waits for postmaster.pid to go (the postmaster removes it on the way
 * out), not for the pid: an orphaned postmaster may linger as a zombie where
 * pid 1 does not reap. What remains possible: the watchdog killed too (`kill -9`
 * of the whole session, a killed container), which leaves the server running
 * until `pg_ctl stop -D DIR/data` (or `kill -QUIT` of the pid in
 * DIR/data/postmaster.pid) and the dir in the temp dir; a reboot leaves only
 * the dir. stop() kills the watchdog first.
 */
function startWatchdog(dir: string, dataDir: string): number | undefined {
  const script = [
    'while kill -0 "$1" 2>/dev/null; do sleep 0.5; done',
    'seen=; i=0',
    'while [ $i -lt 100 ]; do',
    '  pid=$(head -n 1 "$3/postmaster.pid" 2>/dev/null)',
    '  if [ -n "$pid" ]; then seen=1; kill -QUIT "$pid" 2>/dev/null; elif [ -n "$seen" ]; then break; fi',
    '  sleep 0.1; i=$((i+1))',
    'done',
    'rm -rf "$2"',
  ].join('\n');
  // detached: its own process group, so a Ctrl-C to the test run does not take it down with the test process.
  const child = spawn('sh', ['-c', script, 'postgres-cluster-watchdog', String(process.pid), dir, dataDir], {
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
  return child.pid;
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

function readFileIfAny(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function logTail(logFile: string, lines = 30): string {
  return readFileIfAny(logFile).trimEnd().split('\n').slice(-lines).join('\n') || '(empty)';
}

/** Names go into SQL and the URL unquoted: plain identifiers only. */
function checkedName(name: string, what: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`PostgreSQL ${what} name ${JSON.stringify(name)}: use lower-case letters, digits and _`);
  return name;
}
