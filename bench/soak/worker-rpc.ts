/** The soak benchmark's threads: starting one, and a tiny request/answer protocol over its messages. */
import { parentPort, Worker } from 'node:worker_threads';

/**
 * Starts bench/soak/worker.ts in a worker thread as `data.role` (an IssuerRole or a ReturningRole,
 * which worker.ts tells apart); resolves once it is ready for commands.
 */
export function startWorker<Role extends { role: string }>(data: Role): Promise<Worker> {
  const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: data });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    const onReady = (message: { command: string }): void => {
      if (message.command !== 'ready') return;
      worker.off('message', onReady);
      resolve(worker);
    };
    worker.on('message', onReady);
  });
}

export function rpc<T>(worker: Worker, command: string, payload: unknown = null): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { command: string; result?: T; error?: string }): void => {
      if (message.command !== command) return;
      worker.off('message', onMessage);
      if (message.error !== undefined) reject(new Error(`${command}: ${message.error}`));
      else resolve(message.result as T);
    };
    worker.on('message', onMessage);
    worker.postMessage({ command, payload });
  });
}

/** In a worker: answers each command with its handler's result, then says it is ready. */
export function serveCommands(handlers: Record<string, (payload: unknown) => Promise<unknown>>): void {
  parentPort!.on('message', (message: { command: string; payload: unknown }) => {
    const handler = handlers[message.command];
    if (!handler) return;
    handler(message.payload).then(
      (result) => parentPort!.postMessage({ command: message.command, result }),
      (error: unknown) =>
        parentPort!.postMessage({
          command: message.command,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        }),
    );
  });
  parentPort!.postMessage({ command: 'ready', result: null });
}
