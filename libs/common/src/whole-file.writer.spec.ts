import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFileWhole } from './whole-file.writer';

describe('replaceFileWhole', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'nestclaw-whole-'));

  it('replaces the file with the given mode and leaves no temporary file', () => {
    const d = dir();
    const path = join(d, 'config.yaml');
    writeFileSync(path, 'old');
    replaceFileWhole(path, '新的内容', 0o600);
    expect(readFileSync(path, 'utf8')).toBe('新的内容');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(d)).toEqual(['config.yaml']);
  });

  it('replaces a link at the path instead of writing through it', () => {
    const d = dir();
    writeFileSync(join(d, 'secret'), 'keep me');
    symlinkSync(join(d, 'secret'), join(d, 'SOUL.md'));
    replaceFileWhole(join(d, 'SOUL.md'), 'new soul', 0o660);
    expect(readFileSync(join(d, 'secret'), 'utf8')).toBe('keep me');
    expect(lstatSync(join(d, 'SOUL.md')).isSymbolicLink()).toBe(false);
  });

  it('removes a stale temporary link instead of following it, and throws leaving the file as it was when it cannot write', () => {
    const d = dir();
    const path = join(d, 'f');
    writeFileSync(join(d, 'target'), 'untouched');
    symlinkSync(join(d, 'target'), `${path}.${process.pid}.saving`);
    replaceFileWhole(path, 'written', 0o600);
    expect(readFileSync(join(d, 'target'), 'utf8')).toBe('untouched');
    expect(readFileSync(path, 'utf8')).toBe('written');
    mkdirSync(`${path}.${process.pid}.saving`);
    expect(() => replaceFileWhole(path, 'not written', 0o600)).toThrow();
    expect(readFileSync(path, 'utf8')).toBe('written');
  });
});
