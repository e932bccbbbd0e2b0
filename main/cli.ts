#!/usr/bin/env node
/**
 * ticket-kiosk: the door kiosk from the command line.
 *   ticket-kiosk web [--port P] [--data DIR] [--host H] [--allow-remote] [--issuer-ca FILE]
 *                    [--scanner VID:PID[:MODE]]... [--no-hid] [--no-lan] [--lan-peer HOST[:PORT]]...
 *                    [--repeat-read-window MS]
 * runs the kiosk core in Node and serves the kiosk screens to a browser
 * (main/web-host), and prints a one-time launch URL for it.
 *   ticket-kiosk web --print-url [--data DIR]
 * prints a new launch URL for the host running on DIR.
 * The Electron app is `npm start`.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { defaultWebHostDataDir, rendererDistDir } from './host/app-paths.js';
import { lanWanted, parseKnownScanner, parseRepeatReadWindow, startKioskRuntime, type KioskRuntime } from './host/kiosk-runtime.js';
import type { KnownScanner } from './kiosk/scanner/index.js';
import { parsePeerAddress } from './kiosk/sync/lan-config.js';
import type { PeerAddress } from './kiosk/sync/lan-peers.js';
import { LAUNCH_TOKEN_TTL_MS, launchFilePath, printLaunchUrl, PrintUrlError } from './web-host/launch.js';
import { listenProblem } from './web-host/request-checks.js';
import { startWebHost, type WebHost } from './web-host/server.js';

interface WebCommandOptions {
  port: number;
  host: string;
  data: string;
  allowRemote: boolean;
  issuerCa?: string;
  scanner: KnownScanner[];
  hid: boolean;
  /** Commander's --no-lan: false when given. */
  lan: boolean;
  /** --lan-peer, repeatable: kiosks to talk to without multicast discovery. */
  lanPeer: PeerAddress[];
  repeatReadWindow?: number;
  printUrl: boolean;
}

const log = (line: string): void => console.log(`[kiosk] ${line}`);

async function printUrl(dataDir: string): Promise<void> {
  try {
    console.log(await printLaunchUrl(dataDir));
  } catch (error) {
    console.error(
      `ticket-kiosk: ${error instanceof PrintUrlError ? error.message : `cannot make a launch URL: ${error instanceof Error ? error.message : String(error)}`}`,
    );
    process.exitCode = 1;
  }
}

async function runWeb(options: WebCommandOptions): Promise<void> {
  if (options.printUrl) return printUrl(options.data);
  const problem = listenProblem(options.host, options.allowRemote);
  if (problem) {
    console.error(`ticket-kiosk: ${problem}`);
    process.exitCode = 2;
    return;
  }
  let runtime: KioskRuntime;
  try {
    runtime = await startKioskRuntime({
      dataDir: options.data,
      hidScanners: options.hid,
      knownScanners: options.scanner,
      // docs/kiosk.md "Kiosks on one LAN": on by default (UDP 47474, multicast discovery on the local segment).
      // Peers listed by hand (--lan-peer, and kiosk-config.json's lan.peers) join the list discovery fills.
      lan: options.lan && lanWanted() ? { peers: options.lanPeer } : false,
      ...(options.issuerCa ? { issuerCaFile: options.issuerCa } : {}),
      ...(options.repeatReadWindow === undefined ? {} : { repeatReadWindowMs: options.repeatReadWindow }),
      log,
    });
  } catch (error) {
    // SecretStoreUnavailableError says what IT must install; no message here holds a secret.
    console.error(`ticket-kiosk: cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    return;
  }
  let host: WebHost;
  try {
    host = await startWebHost({
      core: runtime.core,
      host: options.host,
      port: options.port,
      allowRemote: options.allowRemote,
      rendererDir: rendererDistDir(),
      launchFile: launchFilePath(options.data),
      log,
    });
  } catch (error) {
    console.error(
      `ticket-kiosk: cannot listen on ${options.host}:${options.port}: ${error instanceof Error ? error.message : String(error)}`,
    );
    await runtime.close();
    process.exitCode = 1;
    return;
  }
  // The one place a launch token is printed: stdout, for whoever started the host (never the log lines).
  console.log(
    [
      `Ticket kiosk running at ${host.url} (state in ${options.data}). Ctrl-C stops it.`,
      `Open this launch URL in the browser (it works once, within ${LAUNCH_TOKEN_TTL_MS / 60_000} minutes):`,
      `    ${host.launchUrl()}`,
      `Another browser, or later: ticket-kiosk web --print-url --data ${shellWord(options.data)}`,
    ].join('\n'),
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    // The core waits for the scan in flight and the queue's last write.
    void host
      .close()
      .then(() => runtime.close())
      .catch((error: unknown) => {
        console.error(`ticket-kiosk: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = 1;
      })
      .finally(() => process.exit());
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError('a port is a number from 0 to 65535');
  return port;
}

function repeatReadWindow(value: string): number {
  try {
    return parseRepeatReadWindow(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

function lanPeer(value: string, previous: PeerAddress[]): PeerAddress[] {
  try {
    return [...previous, parsePeerAddress(value)];
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

function scannerId(value: string, previous: KnownScanner[]): KnownScanner[] {
  try {
    return [...previous, parseKnownScanner(value)];
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

const program = new Command('ticket-kiosk').description('The door kiosk for Ed25519-signed tickets');
program
  .command('web')
  .description('Run the kiosk in Node and serve its screens to a browser')
  .addOption(new Option('--port <port>', 'port to listen on').default(8787).argParser(portNumber))
  .option('--host <host>', 'address to listen on (loopback unless --allow-remote)', '127.0.0.1')
  .option('--data <dir>', "the kiosk's state directory", defaultWebHostDataDir())
  .option('--allow-remote', 'listen beyond loopback: anyone on that network can operate the door', false)
  .option('--issuer-ca <file>', "PEM of the CA that signed an on-site issuer's certificate")
  .option('--scanner <vid:pid[:mode]>', 'allow a keyboard-mode HID scanner, e.g. 05e0:1200:keyboard (repeatable)', scannerId, [])
  .option('--no-hid', 'do not read HID scanners (keyboard-wedge scanners still work in the page)')
  .option('--no-lan', 'no LAN warnings between kiosks (UDP 47474; also TICKET_KIOSK_LAN=off)')
  .option('--lan-peer <host[:port]>', 'another kiosk to warn on the LAN, where multicast does not reach it (repeatable)', lanPeer, [])
  .option('--print-url', 'print a new one-time launch URL for the host already running on --data, and exit', false)
  .option(
    '--repeat-read-window <ms>',
    'a read of the same code within this many ms of its first read (and while its verdict shows) is the same scan (default 3000)',
    repeatReadWindow,
  )
  .action((options: WebCommandOptions) => runWeb(options));

await program.parseAsync(process.argv);
