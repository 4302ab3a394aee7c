import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { permissionInput, permissionMatchKey, permissionOutcome } from './permission-mapping';

const OPTIONS: RequestPermissionRequest['options'] = [
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'no', name: 'Reject', kind: 'reject_once' },
  { optionId: 'never', name: 'Never', kind: 'reject_always' },
];
const shell: RequestPermissionRequest = {
  sessionId: 's1',
  toolCall: {
    toolCallId: 'c1',
    title: 'rm -rf build',
    kind: 'execute',
    rawInput: { command: 'rm -rf build', description: 'Remove the build output' },
  },
  options: OPTIONS,
};
const edit: RequestPermissionRequest = {
  sessionId: 's1',
  toolCall: {
    toolCallId: 'c2',
    title: 'Edit src/app.ts',
    kind: 'edit',
    locations: [{ path: '/w/src/app.ts', line: 3 }, { path: '/w/README.md' }],
    content: [
      { type: 'diff', path: '/w/src/app.ts', oldText: 'a = 1\n', newText: 'a = 2\n' },
      { type: 'diff', path: '/w/NEW.md', newText: '新文件\n' },
      { type: 'content', content: { type: 'text', text: 'Bump a' } },
    ],
  },
  options: OPTIONS,
};

describe('ACP permission request → approval input', () => {
  it('carries a shell call whole: title, kind, the command and the raw input, and the options offered', () => {
    expect(permissionInput('gemini', shell)).toEqual({
      cli: 'gemini',
      tool: 'rm -rf build',
      kind: 'execute',
      command: 'rm -rf build',
      rawInput: { command: 'rm -rf build', description: 'Remove the build output' },
      options: ['Always allow (allow_always)', 'Allow (allow_once)', 'Reject (reject_once)', 'Never (reject_always)'],
    });
    expect(permissionMatchKey(permissionInput('gemini', shell))).toBe('execute rm -rf build');
  });

  it('carries an edit with its files and every diff (old text null for a new file) and the notes', () => {
    const input = permissionInput('claude', edit);
    expect(input).toMatchObject({
      tool: 'Edit src/app.ts',
      kind: 'edit',
      locations: ['/w/src/app.ts:3', '/w/README.md'],
      diffs: [
        { path: '/w/src/app.ts', oldText: 'a = 1\n', newText: 'a = 2\n' },
        { path: '/w/NEW.md', oldText: null, newText: '新文件\n' },
      ],
      notes: ['Bump a'],
    });
    expect(input).not.toHaveProperty('command');
    expect(permissionMatchKey(input)).toBe('edit Edit src/app.ts /w/src/app.ts:3 /w/README.md');
  });

  it('reads a command given as an argument list, and names an untitled call by it', () => {
    const input = permissionInput('x', { ...shell, toolCall: { toolCallId: 'c3', rawInput: { command: ['git', 'push', '--force'] } } });
    expect(input).toMatchObject({ tool: 'git push --force', kind: 'other', command: 'git push --force' });
  });
});

describe('decision → ACP outcome', () => {
  it('approve picks the one-time allow, never the "always" one', () => {
    expect(permissionOutcome('approve', shell)).toEqual({ outcome: 'selected', optionId: 'once' });
  });

  it('deny (and an expired approval, which is decided as deny) picks the one-time reject', () => {
    expect(permissionOutcome('deny', shell)).toEqual({ outcome: 'selected', optionId: 'no' });
  });

  it('is cancelled when the option it needs is not offered, or the turn was given up', () => {
    const alwaysOnly = { ...shell, options: OPTIONS.filter((o) => o.kind.endsWith('always')) };
    expect(permissionOutcome('approve', alwaysOnly)).toEqual({ outcome: 'cancelled' });
    expect(permissionOutcome('deny', alwaysOnly)).toEqual({ outcome: 'cancelled' });
    expect(permissionOutcome('cancelled', shell)).toEqual({ outcome: 'cancelled' });
  });
});
