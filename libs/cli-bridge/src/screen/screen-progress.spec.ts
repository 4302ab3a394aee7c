import { ProgressThrottle, screenProgress } from './screen-progress';
import { screenLines } from './screen-reader';

const box = (t: string, width = 50) => `│ ${t.padEnd(width)} │`;
const TOP = `╭${'─'.repeat(52)}╮`;
const BOTTOM = `╰${'─'.repeat(52)}╯`;
const RULE = '─'.repeat(60);

describe('screen progress', () => {
  it("shows Claude Code's last tool lines and its spinner as the status, without the welcome box, the input box or the mode line", () => {
    const before = [TOP, box('✻ Welcome to Claude Code!'), box(''), box('cwd: /home/u/proj'), BOTTOM, '', TOP, box('>'), BOTTOM];
    const after = [
      ...before.slice(0, 6),
      '> run the tests and fix what fails',
      '',
      "⏺ I'll run the test suite first.",
      '',
      '⏺ Bash(npm test)',
      '  ⎿  Running…',
      '',
      '✶ Running npm test… (12s · ↓ 1.2k tokens · esc to interrupt)',
      '',
      TOP,
      box('>'),
      BOTTOM,
      '  ⏵⏵ accept edits on (shift+tab to cycle)',
    ];
    expect(screenProgress(before, after, 'run the tests and fix what fails')).toBe(
      "⏺ I'll run the test suite first.\n⏺ Bash(npm test)\n⎿  Running…\n✶ Running npm test…",
    );
  });

  it("keeps only the last few lines under Claude Code's rules-style input area, and no status bar", () => {
    const before = ['', RULE, '❯', RULE, '  ? for shortcuts'];
    const after = [
      '',
      '> tidy the repo',
      '⏺ Bash(git status)',
      '  ⎿  On branch main',
      '     modified: a.ts',
      '     modified: b.ts',
      '     … +12 lines (ctrl+r to expand)',
      '',
      '✢ Tidying… (45s · ↑ 3.4k tokens · esc to interrupt)',
      '',
      RULE,
      '❯',
      RULE,
      '  ? for shortcuts                      ◯ IDE disconnected',
    ];
    expect(screenProgress(before, after, 'tidy the repo')).toBe(
      '⎿  On branch main\nmodified: a.ts\nmodified: b.ts\n… +12 lines (ctrl+r to expand)\n✢ Tidying…',
    );
  });

  it('reads a scrolling CLI drawn with colours: no escape, no echo, the braille spinner line as the status', () => {
    const before = screenLines('fake-cli ready\n> ');
    const after = screenLines(
      'fake-cli ready\n> 第一行 progress\n\x1b[32mReading src/app.ts\x1b[0m\n\x1b[1mRunning npm test\x1b[0m\n\x1b[2K⠙ Thinking…',
    );
    const shown = screenProgress(before, after, '第一行 progress');
    expect(shown).toBe('Reading src/app.ts\nRunning npm test\n⠙ Thinking…');
    expect(shown).not.toContain('\x1b');
    expect(shown).not.toContain('第一行');
  });

  it('shows nothing before the echo of the input is on the screen (a half-drawn line could be the input)', () => {
    expect(screenProgress(['fake-cli ready', '>'], ['fake-cli ready', '> run the te'], 'run the tests')).toBeUndefined();
  });

  it('shows nothing while the CLI has written nothing but its echo', () => {
    expect(screenProgress(['ready', '>'], ['ready', '> hello'], 'hello')).toBeUndefined();
  });

  it('leaves the echo of every line of a multi-line input out', () => {
    const after = ['ready', '> line one', 'line two', 'Working on it'];
    expect(screenProgress(['ready', '>'], after, 'line one\nline two')).toBe('Working on it');
  });

  it('shows nothing once the CLI is back at its empty prompt without a spinner (the answer is coming, not progress)', () => {
    expect(screenProgress(['ready', '>'], ['ready', '> clean up', 'answer: n', '>'], 'clean up')).toBeUndefined();
  });

  it('cuts a very long line short', () => {
    const shown = screenProgress(['>'], ['> go', 'x'.repeat(500)], 'go')!;
    expect(shown.length).toBeLessThanOrEqual(160);
    expect(shown.endsWith('…')).toBe(true);
  });
});

describe('progress throttle', () => {
  it('shows a changed screen at once, then at most once per interval, and only new text', () => {
    const t = new ProgressThrottle(1500);
    expect(t.next(true, 0, () => 'a')).toBe('a');
    expect(t.next(true, 200, () => 'b')).toBeUndefined();
    // The screen went still after changing: its latest text still shows once the interval has passed.
    expect(t.next(false, 1500, () => 'b')).toBe('b');
    expect(t.next(true, 3100, () => 'b')).toBeUndefined();
    expect(t.next(false, 5000, () => 'c')).toBeUndefined();
  });

  it('does not read the screen when nothing changed', () => {
    const t = new ProgressThrottle(1500);
    const view = jest.fn(() => 'a');
    t.next(false, 10_000, view);
    expect(view).not.toHaveBeenCalled();
  });
});
