/**
 * Workspace files read into every conversation of an agent: the bootstrap files (its system
 * prompt), `MEMORY.md` and `memory/**` (the owner's memories, recalled in their turns) and
 * `skills/**` (listed in every prompt). A write to one of them changes what the agent says to
 * everyone, so its approval says so, and on a turn that is not the owner's only the owner decides it.
 */
export const BOOTSTRAP_FILES = ['AGENTS.md', 'SOUL.md', 'USER.md', 'IDENTITY.md', 'TOOLS.md'] as const;

/** The person id of the owner's own turns (memory's OWNER_SCOPE; the tool lib cannot import memory). */
export const OWNER_PERSON = 'owner';

/** Why writing `relPath` (relative to the workspace, `/`-separated) shapes every conversation; undefined when it does not. */
export function conversationFileReason(relPath: string): string | undefined {
  const path = relPath.replace(/^\.\/+/, '');
  if ((BOOTSTRAP_FILES as readonly string[]).includes(path))
    return `${path} is part of the system prompt of every conversation with this agent`;
  if (path === 'MEMORY.md' || path === 'memory' || path.startsWith('memory/'))
    return `${path} becomes one of the owner's memories, recalled in their conversations`;
  if (path === 'skills' || path.startsWith('skills/')) return `${path} is a skill listed in every conversation's prompt`;
  return undefined;
}

const MENTION = new RegExp(
  `(^|[\\s/'"=<>])(${[...BOOTSTRAP_FILES, 'MEMORY.md'].map((f) => f.replace('.', '\\.')).join('|')}|memory/|skills/)`,
);

/** For a shell command: the conversation-shaping file it names, if any (a command may write what it mentions). */
export function commandConversationFileReason(command: string): string | undefined {
  const m = MENTION.exec(command);
  if (!m) return undefined;
  return `the command names ${m[2]}, which shapes every conversation with this agent (system prompt, memories or skills)`;
}
