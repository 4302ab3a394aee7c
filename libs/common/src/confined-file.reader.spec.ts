import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readConfinedFile } from './confined-file.reader';

describe('readConfinedFile', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'confined-')));
  const root = join(base, 'ws');
  beforeAll(() => {
    mkdirSync(join(root, 'sub'), { recursive: true });
    writeFileSync(join(root, 'sub', 'a.md'), 'inside');
    writeFileSync(join(base, 'secret.yaml'), 'api_key: sk-SECRET');
    symlinkSync(join(base, 'secret.yaml'), join(root, 'out-link.md'));
    symlinkSync(base, join(root, 'out-dir'));
    symlinkSync(join(root, 'sub', 'a.md'), join(root, 'in-link.md'));
    symlinkSync(join(base, 'nothing-here'), join(root, 'dangling.md'));
    symlinkSync('/dev/zero', join(root, 'zero.md'));
    execFileSync('mkfifo', [join(root, 'fifo.md')]);
    writeFileSync(join(root, 'big.md'), '');
    truncateSync(join(root, 'big.md'), 180 * 1024 * 1024); // sparse: 180 MB of NULs, no disk used
    writeFileSync(join(root, 'zh.md'), '你好世界'.repeat(100)); // 3 bytes a character
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const read = (rel: string, maxBytes = 1024, tailBytes?: number) => readConfinedFile(root, rel, { maxBytes, tailBytes });

  it('reads a file inside the root, and a symlink that stays inside', () => {
    expect(read('sub/a.md')).toMatchObject({ ok: true, file: { head: 'inside', size: 6, omittedBytes: 0 } });
    expect(read('in-link.md')).toMatchObject({ ok: true, file: { head: 'inside' } });
  });

  it.each([
    ['out-link.md', 'symlink leading outside'],
    ['out-dir/secret.yaml', 'symlink leading outside'],
    ['../secret.yaml', 'outside its folder'],
    ['dangling.md', 'dangling symlink'],
    ['zero.md', 'symlink leading outside'],
    ['sub', 'not a regular file (a directory)'],
  ])('refuses %s (%s) without reading it', (rel, reason) => {
    const r = read(rel);
    expect(r).toMatchObject({ ok: false, missing: false });
    expect(JSON.stringify(r)).toContain(reason);
    expect(JSON.stringify(r)).not.toContain('sk-SECRET');
  });

  it('refuses a FIFO at once instead of blocking on it', () => {
    expect(read('fifo.md')).toMatchObject({ ok: false, reason: expect.stringContaining('a FIFO') });
  });

  it('says a missing file is missing', () => {
    expect(read('nope.md')).toMatchObject({ ok: false, missing: true });
  });

  it('reads only maxBytes of a 180 MB file, split between head and tail', () => {
    const before = process.memoryUsage().arrayBuffers;
    const r = read('big.md', 4096, 1024);
    expect(r).toMatchObject({ ok: true, file: { size: 180 * 1024 * 1024, omittedBytes: 180 * 1024 * 1024 - 4096 } });
    if (r.ok) expect(r.file.head.length + r.file.tail.length).toBe(4096);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(10 * 1024 * 1024);
  });

  it('never cuts a multi-byte character in half at the head or the tail', () => {
    const r = read('zh.md', 100, 50);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.file.head).toMatch(/^(你好世界)+[你好世界]*$/);
    expect(r.file.head).not.toContain('\ufffd');
    expect(r.file.tail).not.toContain('\ufffd');
    expect(r.file.tail.endsWith('世界')).toBe(true);
  });
});
