/**
 * The exec-policy corpus: [command, expected verdict, the reason (substring) when refused].
 * Legitimate commands a model would write must pass; every attack class of the security review
 * (issue 9) must be refused. Paths are checked against a workspace holding `notes.txt`,
 * `data.csv`, `data.json`, `patterns.txt`, `logs/app.log`, `src/` and `etc-link -> /etc`.
 */
export type CorpusRow = [command: string, verdict: 'allow' | 'refuse', reason?: string];

/** Substrings of the reasons the policy gives, shared by the refused rows. */
export const OUTSIDE = 'outside the workspace';
export const UNKNOWN = 'is not an option this policy knows';
export const NOT_ALLOWED = 'is not on the allowlist';
export const RUNS = 'runs another program';
export const WRITES = 'writes a file';
export const NAMES_FROM = 'reads file names from another file or stdin';
