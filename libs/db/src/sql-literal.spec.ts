import { sqlLiteral, withLiterals } from './sql-literal';

describe('sqlLiteral', () => {
  it('quotes strings so quotes, backslashes and Chinese survive', () => {
    expect(sqlLiteral("it's")).toBe("'it''s'");
    expect(sqlLiteral('a\\b')).toBe(" E'a\\\\b'");
    expect(sqlLiteral('模型')).toBe("'模型'");
  });

  it('writes numbers, booleans and null as SQL', () => {
    expect(sqlLiteral(3)).toBe('3');
    expect(sqlLiteral(-1.5)).toBe('-1.5');
    expect(sqlLiteral(true)).toBe('true');
    expect(sqlLiteral(null)).toBe('NULL');
    expect(sqlLiteral(undefined)).toBe('NULL');
  });

  it('refuses what it cannot write exactly', () => {
    expect(() => sqlLiteral(Number.NaN)).toThrow(TypeError);
    expect(() => sqlLiteral(Infinity)).toThrow(TypeError);
    expect(() => sqlLiteral({} as unknown as string)).toThrow(TypeError);
  });
});

describe('withLiterals', () => {
  it('writes each placeholder as its literal, leaving quoted text alone', () => {
    expect(withLiterals(`INSERT INTO t VALUES ($1, $2, $10, '$1', "$2")`, ["o'k", 2, 3, 4, 5, 6, 7, 8, 9, true])).toBe(
      `INSERT INTO t VALUES ('o''k', 2, true, '$1', "$2")`,
    );
  });

  it('refuses a placeholder without a value', () => {
    expect(() => withLiterals('SELECT $2', ['a'])).toThrow(RangeError);
  });
});
