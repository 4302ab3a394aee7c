import { parseEntry, wireName } from './tool-names';

describe('MCP tool names', () => {
  it('names a tool <server>__<tool>, in the characters every provider accepts', () => {
    expect(wireName('github', 'create_issue')).toBe('github__create_issue');
    expect(wireName('fs', 'read.file/v2')).toBe('fs__read_file_v2');
    expect(wireName('web', '搜索')).toBe('web____');
  });

  it('refuses a name longer than 64 characters with its prefix', () => {
    expect(wireName('server', 'x'.repeat(56))).toBe(`server__${'x'.repeat(56)}`);
    expect(wireName('server', 'x'.repeat(57))).toBeUndefined();
  });

  it('reads server.tool, server__tool and server.* / server__* in an agent list', () => {
    expect(parseEntry('github.create_issue')).toEqual({ server: 'github', all: false, wire: 'github__create_issue' });
    expect(parseEntry('github__create_issue')).toEqual({ server: 'github', all: false, wire: 'github__create_issue' });
    expect(parseEntry('my-server.*')).toEqual({ server: 'my-server', all: true });
    expect(parseEntry('github__*')).toEqual({ server: 'github', all: true });
  });

  it('leaves built-in tool names alone', () => {
    expect(parseEntry('file_read')).toBeUndefined();
    expect(parseEntry('current_time')).toBeUndefined();
  });
});
