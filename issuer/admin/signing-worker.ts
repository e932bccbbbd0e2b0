/**
 * A signing thread of SigningPool (signing-pool.ts): receives a packed batch
 * of messages, signs each with the issuer key (issuer/signing.ts, node:crypto),
 * and answers with the 64-byte signatures packed end to end.
 */
import type { KeyObject } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { signEd25519Node } from '../signing.js';

export interface SignRequest {
  id: number;
  /** All messages, end to end. */
  bytes: Uint8Array;
  /** Message i is bytes[ends[i-1] ?? 0 .. ends[i]). */
  ends: Uint32Array;
}

export interface SignResponse {
  id: number;
  signatures?: Uint8Array;
  error?: string;
}

const privateKey = (workerData as { privateKey: KeyObject }).privateKey;

parentPort!.on('message', (request: SignRequest) => {
  try {
    const signatures = new Uint8Array(request.ends.length * 64);
    let start = 0;
    request.ends.forEach((end, i) => {
      signatures.set(signEd25519Node(request.bytes.subarray(start, end), privateKey), i * 64);
      start = end;
    });
    parentPort!.postMessage({ id: request.id, signatures } satisfies SignResponse, [signatures.buffer]);
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies SignResponse);
  }
});
