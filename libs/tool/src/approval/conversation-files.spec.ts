import { commandConversationFileReason, conversationFileReason } from './conversation-files';

describe('files that shape every conversation', () => {
  it.each(['AGENTS.md', 'SOUL.md', 'USER.md', 'IDENTITY.md', 'TOOLS.md', './SOUL.md'])('flags the bootstrap file %s', (path) => {
    expect(conversationFileReason(path)).toContain('system prompt of every conversation');
  });

  it.each(['MEMORY.md', 'memory/notes.md', 'memory/2026/11.md'])('flags the memory file %s', (path) => {
    expect(conversationFileReason(path)).toContain("owner's memories");
  });

  it('flags anything under skills/', () => {
    expect(conversationFileReason('skills/brag/SKILL.md')).toContain('skill');
  });

  it.each(['notes.md', 'docs/AGENTS.md', 'soul.md', 'memory.md', 'my-skills/x.md'])('leaves %s alone', (path) => {
    expect(conversationFileReason(path)).toBeUndefined();
  });

  it('flags a shell command that names one, and not one that does not', () => {
    expect(commandConversationFileReason('echo hi >> AGENTS.md')).toContain('AGENTS.md');
    expect(commandConversationFileReason('cp x.md memory/x.md')).toContain('memory/');
    expect(commandConversationFileReason('ls -la')).toBeUndefined();
    expect(commandConversationFileReason('cat MYAGENTS.md')).toBeUndefined();
  });
});
