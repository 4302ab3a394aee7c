import { parse } from 'yaml';
import { z } from 'zod';

const list = z.union([z.string().transform((s) => [s]), z.array(z.string())]).default([]);

/** A skill's name, and the name of a skill folder created from the control UI. */
export const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const SKILL_NAME_RULE = 'letters, digits, ".", "_" or "-" (starting with a letter or digit), at most 64';
/** A SKILL.md larger than this is refused (it would be read whole by skill_read). */
export const MAX_SKILL_BYTES = 64 * 1024;

const frontMatter = z.object({
  name: z.string().regex(SKILL_NAME, SKILL_NAME_RULE).optional(),
  description: z.string().min(1, 'a one-line description is required'),
  requires: z.object({ bins: list, env: list }).prefault({}),
});

export type SkillFrontMatter = { name?: string; description: string; requires: { bins: string[]; env: string[] } };

/** SKILL.md: YAML front matter between `---` lines, then the instructions. */
export function parseSkillFile(text: string): { ok: true; meta: SkillFrontMatter } | { ok: false; error: string } {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  if (!m) return { ok: false, error: 'no YAML front matter (start the file with --- name/description ---)' };
  let raw: unknown;
  try {
    raw = parse(m[1]);
  } catch (e) {
    // People write `description: Plan a trip: flights, hotels` — invalid YAML, obvious intent.
    raw = plainLines(m[1]);
    if (!raw) return { ok: false, error: `front matter is not valid YAML: ${(e as Error).message.split('\n')[0]}` };
  }
  const r = frontMatter.safeParse(raw ?? {});
  if (!r.success) return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || 'front matter'}: ${i.message}`).join('; ') };
  return { ok: true, meta: r.data };
}

/**
 * What the catalog makes of `body` as `<folder>/SKILL.md`: the skill's name (its front matter's, else
 * the folder's) and front matter, or why it is skipped. The control UI's edits pass the same check.
 */
export function checkSkillText(
  folder: string,
  body: string,
  bytes: number,
): { ok: true; name: string; meta: SkillFrontMatter } | { ok: false; error: string } {
  if (bytes > MAX_SKILL_BYTES) return { ok: false, error: `larger than ${MAX_SKILL_BYTES} bytes` };
  const parsed = parseSkillFile(body);
  return parsed.ok ? { ok: true, name: parsed.meta.name ?? folder, meta: parsed.meta } : parsed;
}

/** `key: value` lines taken literally, when every line is one (no nesting, no lists). */
function plainLines(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const kv = /^([A-Za-z_][\w-]*):\s+(.+)$/.exec(line);
    if (!kv) return undefined;
    out[kv[1]] = kv[2].trim();
  }
  return out;
}
