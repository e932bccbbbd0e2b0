/** `ticket-issuer serve` from the build, as a child process on loopback, for the benchmarks that need a real process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../issuer/cli.js', import.meta.url));

export interface ServeProcess {
  url: string;
  process: ChildProcess;
  exited: Promise<number | null>;
}

/** Starts `serve --plain-http` on 127.0.0.1:`port` and resolves once it answers. */
export async function startServeProcess(dataDir: string, port: number): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', '--data', dataDir, '--plain-http', '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`ticket-issuer serve exited: ${stderr}`);
    try {
      if ((await fetch(`${url}/.well-known/ticket-issuer.json`)).ok) return { url, process: child, exited };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`ticket-issuer serve did not answer: ${stderr}`);
}
