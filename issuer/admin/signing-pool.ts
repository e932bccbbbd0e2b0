/**
 * Ed25519 signing on every core. One signature costs about 70 µs on the
 * reference machine (2 cores), so one thread tops out near 14,000 tickets/s;
 * the bulk-issuance goal is 20,000/s. A batch is split across worker threads
 * (signing-worker.ts), each signing with issuer/signing.ts signEd25519Node,
 * while the main thread encodes and stores. Small jobs sign inline: starting
 * threads costs more than it saves.
 */
import type { KeyObject } from 'node:crypto';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { signEd25519Node } from '../signing.js';
import type { SignRequest, SignResponse } from './signing-worker.js';

export interface BatchSigner {
  signAll(messages: readonly Uint8Array[]): Promise<Uint8Array[]>;
  close(): Promise<void>;
}

/** Below this many tickets, inline signing finishes before threads would have started. */
export const POOL_THRESHOLD = 2_000;

export function createSigner(privateKey: KeyObject, ticketCount: number): BatchSigner {
  return ticketCount >= POOL_THRESHOLD ? new SigningPool(privateKey, os.availableParallelism()) : inlineSigner(privateKey);
}

export function inlineSigner(privateKey: KeyObject): BatchSigner {
  return {
    signAll: async (messages) => messages.map((message) => signEd25519Node(message, privateKey)),
    close: async () => {},
  };
}

export class SigningPool implements BatchSigner {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, { resolve: (signatures: Uint8Array) => void; reject: (error: Error) => void }>();
  private nextId = 0;

  constructor(privateKey: KeyObject, size: number) {
    this.workers = Array.from({ length: Math.max(1, size) }, () => {
      const worker = new Worker(new URL('./signing-worker.js', import.meta.url), { workerData: { privateKey } });
      worker.on('message', (response: SignResponse) => this.settle(response));
      worker.on('error', (error) => this.failAll(error));
      return worker;
    });
  }

  async signAll(messages: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const share = Math.ceil(messages.length / this.workers.length);
    const parts = await Promise.all(this.workers.map((worker, w) => this.signOn(worker, messages.slice(w * share, (w + 1) * share))));
    const signatures: Uint8Array[] = [];
    for (const packed of parts)
      for (let offset = 0; offset < packed.length; offset += 64) signatures.push(packed.subarray(offset, offset + 64));
    return signatures;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private signOn(worker: Worker, messages: readonly Uint8Array[]): Promise<Uint8Array> {
    if (messages.length === 0) return Promise.resolve(new Uint8Array(0));
    const ends = new Uint32Array(messages.length);
    let total = 0;
    messages.forEach((message, i) => (ends[i] = total += message.length));
    const bytes = new Uint8Array(total);
    messages.forEach((message, i) => bytes.set(message, ends[i]! - message.length));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, bytes, ends } satisfies SignRequest, [bytes.buffer, ends.buffer]);
    });
  }

  private settle(response: SignResponse): void {
    const waiter = this.pending.get(response.id);
    if (!waiter) return;
    this.pending.delete(response.id);
    if (response.signatures) waiter.resolve(response.signatures);
    else waiter.reject(new Error(`signing failed: ${response.error ?? 'unknown error'}`));
  }

  private failAll(error: Error): void {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}
