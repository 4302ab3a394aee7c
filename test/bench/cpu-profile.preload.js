'use strict';
// Preloaded into the gateway by `npm run bench -- --profile` (node -r …), which spawns it with an
// IPC channel: { profile: 'start' } starts the V8 CPU profiler, { profile: 'stop' } writes
// $NESTCLAW_BENCH_PROFILE (a .cpuprofile for Chrome DevTools or speedscope) and answers
// { profile: 'written' }. Signals cannot be used: Nest's enableShutdownHooks() treats SIGUSR2 as a
// shutdown signal, and its SIGTERM handler re-raises the signal, so --cpu-prof never writes a file.
const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');

const out = process.env.NESTCLAW_BENCH_PROFILE;
if (out && process.send) {
  process.channel?.unref();
  const session = new inspector.Session();
  session.connect();
  process.on('message', (msg) => {
    if (msg?.profile === 'start') {
      session.post('Profiler.enable', () =>
        session.post('Profiler.setSamplingInterval', { interval: 250 }, () =>
          session.post('Profiler.start', () => process.send({ profile: 'started' })),
        ),
      );
    } else if (msg?.profile === 'stop') {
      session.post('Profiler.stop', (err, result) => {
        // Always answer: the benchmark waits for it (a missing bench-results/ once hung it here).
        try {
          if (err) throw err;
          fs.mkdirSync(path.dirname(out), { recursive: true });
          fs.writeFileSync(out, JSON.stringify(result.profile));
        } catch (e) {
          process.stderr.write(`cpu profile failed: ${e.message}\n`);
        }
        process.send({ profile: 'written' });
      });
    }
  });
}
