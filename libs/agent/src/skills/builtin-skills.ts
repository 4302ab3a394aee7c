/** Skills every agent has unless a workspace or global skill of the same name replaces them. */
export const BUILTIN_SKILLS: { name: string; body: string }[] = [
  {
    name: 'web-research',
    body: `---
name: web-research
description: Answer a question from the web with sources - search, read the best pages, cite.
---
# Web research

Use when the answer depends on current or external facts you are not sure of.

1. Run web_search with 2-3 short queries in the language most likely to find good sources
   (English for technical topics; add a Chinese query for China-specific topics).
2. Pick at most 3 promising results; fetch each with http_request (GET). Skip pages that need a login.
3. Read for the facts that answer the question. Note disagreements between sources.
4. Answer in the user's language: the answer first, then "Sources:" with title and URL for each claim.
5. If nothing reliable is found, say so and suggest where to look; never invent a source.
`,
  },
  {
    name: 'user-profile',
    body: `---
name: user-profile
description: Keep USER.md up to date when the user shares lasting facts or preferences about themselves.
---
# Keeping the user profile

USER.md in the workspace is read on every turn. Keep it short and current.

When the user states something lasting (name, time zone, language, job, family, preferences,
recurring tasks, things to avoid):
1. file_read USER.md.
2. Add or correct one bullet under a fitting heading (Basics, Preferences, Work, Avoid). Replace
   outdated facts instead of appending contradictions. No secrets (passwords, keys, ID numbers).
3. file_write the whole file back, under 1,500 characters; merge or drop stale bullets to stay under.
4. Tell the user in one short sentence what you noted.

Do not record passing moods, one-off requests or anything the user asks you to forget.
`,
  },
];
