import type { CorpusRow } from './corpus-row';
import { LEGITIMATE } from './legitimate.corpus';
import { REFUSED } from './refused.corpus';

export type { CorpusRow } from './corpus-row';
export { LEGITIMATE } from './legitimate.corpus';
export { REFUSED } from './refused.corpus';

/** The exec-policy corpus: every legitimate command, then every refused one. */
export const CORPUS: CorpusRow[] = [...LEGITIMATE, ...REFUSED];
