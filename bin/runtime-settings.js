'use strict';
// The one place defining how the gateway's node runs, whoever starts it (`npm start`, a linked
// `nestclaw start`, the Docker image): a 256 MB heap cap (without it V8 keeps growing the heap under
// steady load), an 8 MB young generation (~28 % less CPU a turn than 1 MB), and glibc's allocator on
// two arenas that hand freed blocks ≥ 128 KB back (ADR 0011, ADR 0013).

const NODE_FLAGS = [
  ['--max-old-space-size', '256'],
  ['--max-semi-space-size', '8'],
];
const ALLOCATOR = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '131072' };

/** Settings missing from env (a user's own NODE_OPTIONS flags and allocator variables win); undefined when all are in force. */
function missingSettings(env) {
  const own = env.NODE_OPTIONS ?? '';
  const flags = NODE_FLAGS.filter(([flag]) => !own.includes(flag)).map(([flag, value]) => `${flag}=${value}`);
  const allocator = Object.entries(ALLOCATOR).filter(([name]) => env[name] === undefined);
  if (flags.length === 0 && allocator.length === 0) return undefined;
  return {
    ...Object.fromEntries(allocator),
    ...(flags.length ? { NODE_OPTIONS: [own, ...flags].filter(Boolean).join(' ') } : {}),
  };
}

module.exports = { missingSettings };
