/**
 * One kiosk PROCESS on the LAN, as the LAN tests drive it (lan-kiosk-child.mjs: the real runtime, LAN on loopback
 * only, peers configured by port): start it, scan, annul, drain its queue, sync its revocation list, ask what it
 * heard from its peers, read its log lines. Shared by the tests in this folder.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { fileURLToPath } from 'node:url';
import type { ScanResult } from '../../../main/kiosk/kiosk-api.js';
import type { KeychainApiKeyStore } from '../../../main/kiosk/store/api-key-store.js';

const CHILD = fileURLToPath(new URL('./lan-kiosk-child.mjs', import.meta.url));

/** A UDP port on 127.0.0.1 that was free a moment ago. */
export async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

export class KioskProcess {
  readonly logs: string[] = [];
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(
    readonly label: string,
    readonly dataDir: string,
    readonly port: number,
    readonly peers: number[],
    readonly keys: KeychainApiKeyStore,
    /** How far this kiosk's own clock is off. */
    readonly clockOffsetMs = 0,
  ) {}

  async start(): Promise<void> {
    const config = {
      dataDir: this.dataDir,
      keyringService: `ticket-kiosk-test-${process.pid}-${this.label}`,
      port: this.port,
      peers: this.peers.map((port) => ({ address: '127.0.0.1', port })),
      clockOffsetMs: this.clockOffsetMs,
    };
    const child = fork(CHILD, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.on('message', (message: { ready?: boolean; log?: string; id?: number; result?: unknown; error?: string }) => {
        if (message.ready) resolve();
        if (message.log !== undefined) this.logs.push(message.log);
        if (message.id !== undefined) {
          const waiter = this.waiting.get(message.id);
          this.waiting.delete(message.id);
          if (message.error !== undefined) waiter?.reject(new Error(message.error));
          else waiter?.resolve(message.result);
        }
      });
      child.once('exit', (code) => reject(new Error(`kiosk ${this.label} exited with ${code}`)));
    });
  }

  private call<T>(cmd: string, fields: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child!.send({ id, cmd, ...fields });
    });
  }

  scan(code: string): Promise<ScanResult> {
    return this.call('scan', { code });
  }

  /** Staff's "Undo check-in" at this kiosk (no staff PIN is set in these kiosks). */
  annul(tid: string, reason: string): Promise<{ type: string }> {
    return this.call('annul', { tid, reason });
  }

  /** One pass of its queue to the issuer (the tests' kiosks drain only when told): why it stopped. */
  drain(): Promise<string | null> {
    return this.call('drain');
  }

  /** One sync of its revocation list now, the same run as its timer's (docs/kiosk.md "Revocation list"). */
  syncRevocations(): Promise<null> {
    return this.call('sync');
  }

  /** What this kiosk heard from its peers about the ticket, or null. */
  knows(tid: string): Promise<{ gate: string | null; admitted_at: string; offline: boolean } | null> {
    return this.call('knows', { tid });
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await this.call('close').catch(() => undefined);
    await exited;
    this.child = null;
  }

  kill(): void {
    this.child?.kill();
  }

  lines(pattern: RegExp): string[] {
    return this.logs.filter((line) => pattern.test(line));
  }
}
