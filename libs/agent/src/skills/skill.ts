export type SkillSource = 'workspace' | 'global' | 'builtin';

export interface Skill {
  name: string;
  /** One line, shown in the prompt. */
  description: string;
  source: SkillSource;
  /** The SKILL.md file (absent for built-in skills). */
  path?: string;
  /** The whole SKILL.md, read by the agent through skill_read. */
  body: string;
  requires: { bins: string[]; env: string[] };
  /** Why the skill cannot be used here (a missing binary or variable); absent when available. */
  unavailable?: string;
}

/** Longest description put in the prompt: 20 skills must stay within a few hundred tokens. */
export const MAX_DESCRIPTION_CHARS = 110;
