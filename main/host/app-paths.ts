/**
 * Where the kiosk's files are, whether it runs from the TypeScript sources
 * (tests), from dist/ (npm start, the web host) or from an Electron asar
 * archive: found from this module's location, never from the working directory.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory holding the package's package.json (the repository, or the app inside the asar). */
export function packageRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(from)}`);
    dir = parent;
  }
}

/** The built kiosk page (npm run build:renderer, renderer/vite.config.ts). */
export function rendererDistDir(root: string = packageRoot()): string {
  return join(root, 'dist', 'kiosk-page');
}

/** The web host's default data directory, per platform conventions. */
export function defaultWebHostDataDir(): string {
  const home = homedir();
  switch (process.platform) {
    case 'win32':
      return join(process.env['APPDATA'] ?? join(home, 'AppData', 'Roaming'), 'ticket-kiosk');
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'ticket-kiosk');
    default:
      return join(process.env['XDG_DATA_HOME'] || join(home, '.local', 'share'), 'ticket-kiosk');
  }
}
