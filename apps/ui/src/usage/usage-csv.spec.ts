import { csvCell, usageCsv } from './usage-csv';
import type { UsageGroup } from './usage-report';

const group = (key: string, costUsd = 0.5): UsageGroup => ({
  key,
  calls: 2,
  billedCalls: 2,
  failedCalls: 0,
  cachedCalls: 0,
  interruptedCalls: 0,
  inFlightCalls: 0,
  inputTokens: 10,
  outputTokens: 5,
  cachedInputTokens: 1,
  costUsd,
});

describe('usage CSV export', () => {
  it('writes a header named for the grouping and one row per group', () => {
    expect(usageCsv('model', [group('openai/gpt-4o-mini')])).toBe(
      'model,calls,billed_calls,failed_calls,cached_calls,input_tokens,output_tokens,cached_input_tokens,cost_usd\r\n' +
        'openai/gpt-4o-mini,2,2,0,0,10,5,1,0.5\r\n',
    );
  });

  it('quotes a key holding a comma, a quote or a line break, and keeps Chinese text as it is', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"\n')).toBe('"say ""hi""\n"');
    expect(csvCell('会话一')).toBe('会话一');
  });

  it('turns a key a spreadsheet would run as a formula into text', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell(-1)).toBe('-1');
  });
});
