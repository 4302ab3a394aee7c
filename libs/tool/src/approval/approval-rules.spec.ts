import { configSchema } from '@nestclaw/config';
import { approvalRequired, approvalRule } from './approval-rules';

describe('default approval rules', () => {
  const rules = configSchema.parse({}).tools.approval;

  it.each([
    ['shell', { command: 'wc -l' }, true],
    ['file_write', { path: 'a', content: 'b' }, true],
    ['http_request', { method: 'POST', url: 'https://x' }, true],
    ['http_request', { method: 'delete', url: 'https://x' }, true],
    ['http_request', { method: 'GET', url: 'https://x' }, false],
    ['http_request', { method: 'HEAD', url: 'https://x' }, false],
    ['file_read', { path: 'a' }, false],
    ['file_list', { path: '.' }, false],
    ['web_search', { query: 'q' }, false],
    ['current_time', {}, false],
  ])('%s %j → %s', (tool, input, expected) => {
    expect(approvalRequired(rules, tool, input)).toBe(expected);
  });

  it('says which rule matched, for the person deciding', () => {
    expect(approvalRule(rules, 'shell', { command: 'wc -l' })).toBe('tools.approval.required lists shell');
    expect(approvalRule(rules, 'http_request', { method: 'delete', url: 'https://x' })).toBe(
      'tools.approval.required lists http_request, and DELETE is not in tools.approval.safe_http_methods (GET, HEAD)',
    );
    expect(approvalRule(rules, 'http_request', { url: 'https://x' })).toBeUndefined();
    expect(approvalRule(rules, 'file_read', { path: 'a' })).toBeUndefined();
  });

  it('waits for a timeout of 10 minutes by default', () => {
    expect(rules.timeout).toBe(600_000);
  });
});
