/**
 * Starts what both hosts (Electron shell, web host) run: the kiosk core on
 * its data directory, the API key in the OS keyring, and HID scanners feeding
 * scans into the core. Electron-free (docs/architecture.md "Folders").
 */
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KioskCore, type KioskCoreOptions } from '../kiosk/kiosk-core.js';
import { KeychainApiKeyStore } from '../kiosk/store/api-key-store.js';
import { parseLanesConfig } from '../kiosk/decide/lanes.js';
import { parseAttentionHold } from '../kiosk/decide/attention.js';
import { parseRevocationSettings } from '../kiosk/sync/revocation-sync.js';
import { loadNodeHid, ScannerManager, type KnownScanner, type NodeHidApi, type ScannerMode } from '../kiosk/scanner/index.js';
import { fetchTrustingCa } from './issuer-ca-fetch.js';
import { LanTransport, type LanTransportOptions } from '../kiosk/sync/lan-transport.js';
import { parseLanConfig } from '../kiosk/sync/lan-config.js';

export interface KioskRuntimeOptions {
  /** Where the kiosk keeps its SQLite state. Created if missing. */
  dataDir: string;
  /** Keyring service name (default "ticket-kiosk"); tests use their own. */
  keyringService?: string;
  /** Read HID scanners (HID-POS always; keyboard-mode ones only when listed). */
  hidScanners?: boolean;
  knownScanners?: readonly KnownScanner[];
  /** For tests: a stand-in for the node-hid module (there is no USB hardware in CI). */
  hid?: NodeHidApi;
  /** PEM file of the CA that signed an on-site issuer's certificate. */
  issuerCaFile?: string;
  /** Sent as scanner_platform at enrollment. */
  platform?: string;
  /** docs/kiosk.md "Double reads": a read of the same code within this time is the same scan. Default 3000. */
  repeatReadWindowMs?: number;
  /**
   * Kiosks on one LAN warn each other (docs/kiosk.md "Kiosks on one LAN"): UDP port (default 47474),
   * multicast discovery (default on), peers configured by hand (the list discovery adds to). Absent
   * or false: off. Tests set `discovery: false`, `bindAddress: '127.0.0.1'` and loopback `peers`.
   */
  lan?: Omit<LanTransportOptions, 'log' | 'now'> | false;
  /**
   * The kiosk's configuration file (docs/kiosk.md "Several scanners"); default `kiosk-config.json` in the
   * data directory. Optional: a missing file is no configuration; a damaged one stops the start with its error.
   */
  configFile?: string;
  /** For tests: anything else the core accepts. */
  core?: Partial<Omit<KioskCoreOptions, 'dbPath' | 'apiKeys'>>;
  /** One line per event worth an operator's attention. Never receives scanned text or secrets. */
  log: (line: string) => void;
}

export interface KioskRuntime {
  core: KioskCore;
  /** Null when HID scanning is off or node-hid cannot load here. */
  scanner: ScannerManager | null;
  /** The LAN warnings' socket (docs/kiosk.md "Kiosks on one LAN"); null when off. */
  lan: LanTransport | null;
  /** Stops the scanner, then the core (which waits for scans and the drain in flight). */
  close(): Promise<void>;
}

/** Throws SecretStoreUnavailableError when no usable keyring exists: the kiosk must not start without one. */
export async function startKioskRuntime(options: KioskRuntimeOptions): Promise<KioskRuntime> {
  const apiKeys = new KeychainApiKeyStore(options.keyringService === undefined ? {} : { serviceName: options.keyringService });
  await apiKeys.checkAvailable();
  // The state holds ticket holders' names and the scan history: private to the kiosk user.
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  // An existing folder (a --data given by IT, an older install) keeps its mode unless told: tighten it.
  const tightened = await tightenPrivateDir(options.dataDir);
  if (tightened !== null) options.log(`Data folder ${options.dataDir} was readable by others (mode ${tightened}); it is now 0700.`);

  const coreOptions: KioskCoreOptions = {
    ...options.core,
    dbPath: join(options.dataDir, 'kiosk.db'),
    apiKeys,
    log: options.log,
  };
  const configFile = options.configFile ?? join(options.dataDir, KIOSK_CONFIG_FILE);
  const config = await readConfigFile(configFile);
  const lanes = config === undefined ? null : parseLanesConfig(config, configFile);
  // docs/kiosk.md "Attention notes": how long an attention verdict holds the door without Done.
  const attentionHoldSeconds = parseAttentionHold(config, configFile);
  const revocations = config === undefined ? {} : parseRevocationSettings(config, configFile);
  // docs/kiosk.md "Kiosks on one LAN": peers listed by hand in the file join those the host was given.
  const configPeers = config === undefined ? [] : parseLanConfig(config, configFile);
  const lanOptions = options.lan ? { ...options.lan, peers: [...(options.lan.peers ?? []), ...configPeers] } : false;
  if (lanOptions && configPeers.length > 0)
    options.log(`LAN peers from the configuration file: ${configPeers.map((peer) => `${peer.address}:${peer.port}`).join(', ')}.`);
  // The file is IT's; a test's own core options still win.
  if (revocations.syncIntervalMs !== undefined) coreOptions.revocationSyncIntervalMs ??= revocations.syncIntervalMs;
  if (revocations.maxAgeMs !== undefined) coreOptions.revocationMaxAgeMs ??= revocations.maxAgeMs;
  coreOptions.attentionHoldSeconds ??= attentionHoldSeconds;
  if (lanes) {
    coreOptions.lanes = lanes;
    options.log(`Lanes from the configuration file: ${lanes.lanes.map((lane) => lane.label).join(', ')}.`);
  }
  if (options.repeatReadWindowMs !== undefined) coreOptions.repeatReadWindowMs = options.repeatReadWindowMs;
  const lan = lanOptions ? await startLan(lanOptions, options.log, options.core?.now) : null;
  if (lan) coreOptions.lan = lan;
  if (options.platform) coreOptions.platform = options.platform;
  if (options.issuerCaFile) coreOptions.fetch = fetchTrustingCa(await readFile(options.issuerCaFile, 'utf8'));
  const core = new KioskCore(coreOptions);

  const scanner = options.hidScanners ? await startScanner(core, options) : null;
  let closing: Promise<void> | null = null;
  return {
    core,
    scanner,
    lan,
    close() {
      closing ??= (async () => {
        await scanner?.stop();
        await core.close();
        await lan?.close();
      })();
      return closing;
    },
  };
}

/** The LAN warnings; a port that cannot be bound turns them off with a log line, never stops the kiosk. */
async function startLan(
  lan: Omit<LanTransportOptions, 'log' | 'now'>,
  log: (line: string) => void,
  now: (() => number) | undefined,
): Promise<LanTransport | null> {
  try {
    return await LanTransport.start({ ...lan, log, ...(now ? { now } : {}) });
  } catch (error) {
    log(`LAN warnings off: UDP port ${lan.port ?? 47474} cannot be used (${errorText(error)}).`);
    return null;
  }
}

async function startScanner(core: KioskCore, options: KioskRuntimeOptions): Promise<ScannerManager | null> {
  let hid: NodeHidApi;
  try {
    hid = options.hid ?? (await loadNodeHid());
  } catch (error) {
    options.log(
      `HID scanner input is off: node-hid cannot load here (${errorText(error)}). Keyboard-wedge scanners still work in the window.`,
    );
    return null;
  }
  const scanner = new ScannerManager({
    hid,
    knownScanners: options.knownScanners ?? [],
    // Every scanner, each on its lane (docs/kiosk.md "Several scanners"); without lanes, all serve the kiosk.
    allScanners: true,
    onDevices: (devices) => core.setScannerDevices(devices),
    // The verdict reaches the screen as a state change (last_verdicts); here only failures need a word.
    // A keyboard-mode scanner also types into the window: the core merges the two copies (repeat-reads.ts).
    onScan: (scan) =>
      void core
        .scanFrom(scan.source, scan.text, scan.read, scan.symbologyId, scan.device)
        .catch((error: unknown) => options.log(`A scan could not be handled: ${errorText(error)}`)),
    onProblem: (problem) => options.log(`Scanner: ${problem.message}`),
    onStatus: (status) => {
      options.log(status.message);
      core.setHidScannerStatus({
        state: status.state,
        reason: status.state === 'disconnected' ? status.reason : null,
        message: status.message,
      });
    },
  });
  await scanner.start();
  return scanner;
}

/** The configuration file's name in the data directory (docs/kiosk.md "Several scanners"). */
export const KIOSK_CONFIG_FILE = 'kiosk-config.json';

/** The configuration file's JSON, or undefined when there is none (a missing file is no configuration). Throws, naming the file, on one that is not JSON. */
async function readConfigFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${errorText(error)}`, { cause: error });
  }
  return value;
}

/** Longest repeat window accepted: a read a minute later is surely a new scan. */
export const MAX_REPEAT_READ_WINDOW_MS = 60_000;

/** Parses a repeat-read window in milliseconds (docs/kiosk.md "Double reads"), e.g. `3000`. */
export function parseRepeatReadWindow(text: string): number {
  const ms = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || ms > MAX_REPEAT_READ_WINDOW_MS) {
    throw new Error(`"${text}" is not a repeat-read window: expected whole milliseconds from 0 to ${MAX_REPEAT_READ_WINDOW_MS}, e.g. 3000`);
  }
  return ms;
}

/** Parses `VID:PID` or `VID:PID:MODE` (hex ids as `lsusb` prints them), e.g. `05e0:1200:keyboard`. */
export function parseKnownScanner(text: string): KnownScanner {
  const match = /^([0-9a-f]{4}):([0-9a-f]{4})(?::(hid-pos|keyboard))?$/i.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a scanner id: expected VID:PID or VID:PID:MODE, e.g. 05e0:1200:keyboard`);
  const known: KnownScanner = { vendorId: parseInt(match[1]!, 16), productId: parseInt(match[2]!, 16) };
  if (match[3]) known.mode = match[3].toLowerCase() as ScannerMode;
  return known;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Makes `dir` 0700 if others could read or enter it; returns its old mode (octal) then, else null. No-op on Windows. */
async function tightenPrivateDir(dir: string): Promise<string | null> {
  if (process.platform === 'win32') return null;
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o077) === 0) return null;
  await chmod(dir, 0o700);
  return mode.toString(8).padStart(4, '0');
}

/**
 * Whether a host turns on LAN warnings by default (docs/kiosk.md "Kiosks on one LAN"): yes, unless
 * TICKET_KIOSK_LAN=off. The test suite sets it (vitest.config.ts), so no test multicasts onto a real
 * network; the LAN tests configure loopback peers explicitly.
 */
export function lanWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env['TICKET_KIOSK_LAN'] !== 'off';
}
