/** Few buckets on purpose: every bucket is a series per label set, and the scrape of 20 models × 10 agents must stay small. */
export const SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
export const SHORT_SECONDS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30];
/** OpenTelemetry's recommended buckets for gen_ai.client.token.usage, every other one. */
export const TOKENS = [4, 64, 1024, 16384, 262144, 4194304];
