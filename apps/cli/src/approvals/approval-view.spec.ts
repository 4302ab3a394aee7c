import { describeCall, describeExpiry, visible } from './approval-view';

describe('approval view', () => {
  it('shows a shell command whole, however long, on one line', () => {
    const command = `grep -c ${'x'.repeat(5000)} notes.md`;
    expect(describeCall('shell', { command })).toEqual(['tool: shell', `command: ${command}`]);
  });

  it('shows a multi-line command whole too, line by line', () => {
    const command = Array.from({ length: 30 }, (_, i) => `line${i}`).join('\n');
    const lines = describeCall('shell', { command });
    expect(lines).toHaveLength(2 + 30);
    expect(lines[1]).toBe(`command (30 lines, ${command.length} characters):`);
    expect(lines[31]).toBe('  | line29');
  });

  it('previews long file content and says how much was left out', () => {
    const content = Array.from({ length: 25 }, (_, i) => `第${i + 1}行`).join('\n');
    const lines = describeCall('file_write', { path: 'a.md', content, append: true });
    expect(lines.slice(0, 3)).toEqual(['tool: file_write', 'path: a.md', `content (25 lines, ${content.length} characters):`]);
    expect(lines).toContain('  | 第20行');
    expect(lines).not.toContain('  | 第21行');
    expect(lines).toContain('  … 5 more lines not shown');
    expect(lines[lines.length - 1]).toBe('append: true');
  });

  it('cuts a single very long line at the preview size and says so', () => {
    const lines = describeCall('http_request', { method: 'POST', url: 'https://example.com', body: 'y'.repeat(3000) });
    expect(lines).toContain('body (1 line, 3000 characters):');
    expect(lines).toContain(`  | ${'y'.repeat(2000)}…`);
    expect(lines).toContain('  … the rest not shown');
  });

  it('makes terminal escapes and invisible reordering characters visible instead of obeying them', () => {
    expect(visible('ls\u001b[2K\rrm -rf ~')).toBe('ls\\u{001b}[2K\\u{000d}rm -rf ~');
    expect(visible('a\u202eb\u200bc\ufeff')).toBe('a\\u{202e}b\\u{200b}c\\u{feff}');
    expect(visible('tab\tand 中文')).toBe('tab\tand 中文');
  });

  it('shows input that is not an object as JSON', () => {
    expect(describeCall('odd', 'just text')).toEqual(['tool: odd', 'input: "just text"']);
  });

  it('gives the expiry as a UTC clock time and what is left', () => {
    const now = Date.parse('2026-01-01T10:00:00Z');
    expect(describeExpiry('2026-01-01T10:10:00Z', now)).toBe('expires 10:10:00 UTC (in 10 min)');
    expect(describeExpiry('2026-01-01T10:00:45Z', now)).toBe('expires 10:00:45 UTC (in 45 s)');
    expect(describeExpiry('2026-01-01T09:59:00Z', now)).toBe('expired at 09:59:00 UTC');
  });
});
