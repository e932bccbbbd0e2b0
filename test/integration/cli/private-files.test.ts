/** Files the admin CLI writes are owner only (docs/issuer.md "Files the CLI writes"), on a real file system. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { makePrivateDir, writePrivateFile } from '../../../issuer/admin/private-files.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const scratch = (): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'private-files-'));
  made.push(dir);
  return dir;
};
const modeOf = (file: string): number => fs.statSync(file).mode & 0o777;

describe('private files', () => {
  test('a new file is 0600 and a new folder 0700, whatever the umask allows', () => {
    const previous = process.umask(0o002);
    try {
      const dir = path.join(scratch(), 'out');
      makePrivateDir(dir);
      writePrivateFile(path.join(dir, 'a.png'), Buffer.from([1, 2, 3]));
      expect(modeOf(dir)).toBe(0o700);
      expect(modeOf(path.join(dir, 'a.png'))).toBe(0o600);
      expect([...fs.readFileSync(path.join(dir, 'a.png'))]).toEqual([1, 2, 3]);
    } finally {
      process.umask(previous);
    }
  });

  test('a file that was there, world-readable, is narrowed to 0600 and replaced whole', () => {
    const file = path.join(scratch(), 'ticket.png');
    fs.writeFileSync(file, 'an older, longer content', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    writePrivateFile(file, 'new');
    expect(modeOf(file)).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
  });
});
