import { MAX_TOOL_ARGUMENT_BYTES, toolInputProblem } from './tool-input.validation';

const check = (value: unknown) => toolInputProblem(JSON.stringify(value), value);

describe('tool input validation (before anything is stored)', () => {
  it('accepts ordinary input in any language', () => {
    expect(check({ path: 'notes/中文.txt', content: 'emoji 🙂 and café', append: true, n: [1, 2] })).toBeUndefined();
  });

  it.each([
    [{ path: 'a\u0000b' }, 'input.path contains a NUL character'],
    [{ nested: { deeper: ['ok', 'x\u0000'] } }, 'input.nested.deeper[1] contains a NUL character'],
    [{ ['k\u0000']: 1 }, 'a key of input contains a NUL character'],
    [{ command: 'grep \ud800 x' }, 'input.command is not valid Unicode (a lone surrogate)'],
    [{ command: 'x\udc00' }, 'input.command is not valid Unicode'],
  ])('refuses %j', (value, reason) => {
    expect(check(value)).toContain(reason);
  });

  it('refuses oversize arguments and absurd nesting', () => {
    const big = { content: 'x'.repeat(MAX_TOOL_ARGUMENT_BYTES) };
    expect(check(big)).toMatch(/bytes; the limit is 1048576/);
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(check({ deep })).toMatch(/nested more than 32 levels/);
  });
});
