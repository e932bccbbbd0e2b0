/**
 * Files the admin CLI writes that hold credentials or personal data (docs/issuer.md "Files the CLI writes"):
 * ticket and setup-code PNGs are bearer credentials, the ticket list and PDF carry holder names, the report
 * names scanners and counts. Owner only: 0600 files, 0700 folders the CLI makes, as the export file is written.
 * A file that was already there (an export run twice) is narrowed to 0600 too; a folder the user gave that
 * already existed keeps its mode (the user's Desktop is theirs to open).
 */
import fs from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Opens `file` for writing, owner only, truncating it; returns the descriptor. */
export function openPrivateFile(file: string, flags: 'w' | 'wx' = 'w'): number {
  const fd = fs.openSync(file, flags, PRIVATE_FILE_MODE);
  try {
    // The mode of open() applies only when it creates the file (and the umask may narrow, never widen it).
    fs.fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  return fd;
}

export function writePrivateFile(file: string, data: string | Buffer): void {
  const fd = openPrivateFile(file);
  try {
    fs.writeFileSync(fd, data);
  } finally {
    fs.closeSync(fd);
  }
}

/** Makes the folder `dir` (its parent must exist), owner only. */
export function makePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { mode: PRIVATE_DIR_MODE });
  fs.chmodSync(dir, PRIVATE_DIR_MODE);
}
