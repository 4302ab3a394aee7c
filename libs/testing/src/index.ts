export { ManualClock } from './manual.clock';
export { LABELLED_MESSAGES } from './trivial-messages.labelled';
export { MemoryIdempotencyStore } from './memory-idempotency.store';
export { testConfigService } from './test-config';
export { openIntDatabase, uniqueId } from './int-database';
export type { IntDatabase } from './int-database';
export { CORPUS, LEGITIMATE, REFUSED } from './exec-policy/exec-policy.corpus';
