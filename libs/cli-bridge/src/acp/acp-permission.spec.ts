import type { PermissionOption, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { permissionInput, permissionOutcome } from './acp-permission';

const options: PermissionOption[] = [
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
];

const editRequest: RequestPermissionRequest = {
  sessionId: 's1',
  options,
  toolCall: {
    toolCallId: 'call-1',
    title: 'Edit src/a.ts',
    kind: 'edit',
    content: [
      { type: 'diff', path: '/w/src/a.ts', oldText: 'a\n', newText: '甲\n乙\n' },
      { type: 'content', content: { type: 'text', text: 'first line\nsecond line' } },
    ],
    locations: [{ path: '/w/src/a.ts' }, { path: '/w/src/b.ts' }],
  },
};

describe('ACP permission mapping', () => {
  it('shows the approver the tool, its kind, the diff and the files', () => {
    expect(permissionInput('gem', editRequest)).toEqual({
      cli: 'gem',
      tool: 'Edit src/a.ts',
      kind: 'edit',
      paths: ['/w/src/a.ts', '/w/src/b.ts'],
      diffs: [{ path: '/w/src/a.ts', oldText: 'a\n', newText: '甲\n乙\n' }],
      text: ['first line', 'second line'],
    });
  });

  it('shows a command from the raw input, as a string or an argument list', () => {
    const run = (command: unknown) =>
      permissionInput('gem', { ...editRequest, toolCall: { toolCallId: 'c', kind: 'execute', rawInput: { command } } });
    expect(run('rm -rf build')).toMatchObject({ tool: 'c', kind: 'execute', command: 'rm -rf build', diffs: [] });
    expect(run(['git', 'push'])).toMatchObject({ command: 'git push' });
    expect(run(42)).not.toHaveProperty('command');
  });

  it('approve picks allow_once, never allow_always', () => {
    expect(permissionOutcome('approve', options)).toEqual({ outcome: 'selected', optionId: 'once' });
  });

  it('deny and an expired approval pick reject_once', () => {
    expect(permissionOutcome('deny', options)).toEqual({ outcome: 'selected', optionId: 'no' });
    expect(permissionOutcome('expired', options)).toEqual({ outcome: 'selected', optionId: 'no' });
  });

  it('cancels when the agent offers no matching option, so nothing is allowed by default', () => {
    const alwaysOnly = options.filter((o) => o.kind === 'allow_always');
    expect(permissionOutcome('approve', alwaysOnly)).toEqual({ outcome: 'cancelled' });
    expect(permissionOutcome('deny', alwaysOnly)).toEqual({ outcome: 'cancelled' });
  });
});
