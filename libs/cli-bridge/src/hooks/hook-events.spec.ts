import { progressOf, stopOf } from './hook-events';

describe('hook events', () => {
  it("reads each CLI's end of an answer, with or without its text", () => {
    expect(stopOf({ hook_event_name: 'Stop', last_assistant_message: ' done \n' })).toEqual({ text: 'done' });
    expect(stopOf({ hook_event_name: 'Stop' })).toEqual({});
    expect(stopOf({ hook_event_name: 'AfterAgent', prompt_response: '完成' })).toEqual({ text: '完成' });
    expect(stopOf({ type: 'agent-turn-complete', 'last-assistant-message': null })).toEqual({});
    expect(stopOf({ hook_event_name: 'Notification', message: 'needs permission' })).toBeUndefined();
    expect(stopOf({ hook_event_name: 'PreToolUse', tool_name: 'Bash' })).toBeUndefined();
  });

  it('shows a tool by what a person knows it by, on one short line', () => {
    expect(progressOf({ hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: '/a/b.ts', old_string: 'x' } })).toBe(
      '🔧 Edit: /a/b.ts',
    );
    expect(progressOf({ hook_event_name: 'BeforeTool', tool_name: 'glob', tool_input: { pattern: '**/*.md' } })).toBe('🔧 glob: **/*.md');
    expect(progressOf({ hook_event_name: 'PreToolUse', tool_name: 'TodoWrite', tool_input: { todos: [] } })).toBe('🔧 TodoWrite');
    expect(progressOf({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'x'.repeat(500) } })!.length).toBe(200);
    expect(progressOf({ hook_event_name: 'PreToolUse' })).toBeUndefined();
    expect(progressOf({ hook_event_name: 'Stop' })).toBeUndefined();
  });
});
