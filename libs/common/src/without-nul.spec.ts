import { withoutNul } from './without-nul';

describe('withoutNul', () => {
  it('removes every U+0000 and keeps everything else, Chinese included', () => {
    expect(withoutNul('a\0b\0\0c')).toBe('abc');
    expect(withoutNul('\0登录\u0000失败\0')).toBe('登录失败');
    expect(withoutNul('no nul here')).toBe('no nul here');
    expect(withoutNul('')).toBe('');
  });
});
