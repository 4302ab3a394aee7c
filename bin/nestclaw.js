#!/usr/bin/env node
'use strict';
// The `nestclaw` launcher. `start` loads the gateway bundle directly, so the server process never
// loads the CLI; every other command loads the CLI bundle. Plain CommonJS: it runs before any build.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

/** First argument that is not an option (skipping the value of --config/-c). */
function firstCommand(args) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-c' || a === '--config') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

const args = process.argv.slice(2);
const wantsHelp = args.includes('--help') || args.includes('-h');
// `nestclaw start --help` is answered by the CLI, which documents the options.
const app = firstCommand(args) === 'start' && !wantsHelp ? 'gateway' : 'cli';
const entry = join(__dirname, '..', 'dist', 'apps', app, 'main.js');
if (!existsSync(entry)) {
  process.stderr.write('nestclaw is not built yet: run `npm run build`\n');
  process.exit(1);
}
if (app === 'gateway') {
  const missing = require('./runtime-settings').missingSettings(process.env);
  // The allocator reads its variables when the process starts: run node once more with them.
  if (missing) return void rerunWith(missing);
}
require(entry);

/** Runs this launcher again with the settings in force, as the gateway's parent: signals passed on, its exit code kept. */
function rerunWith(settings) {
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, [...process.execArgv, __filename, ...args], {
    env: { ...process.env, ...settings },
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    // Ctrl-C in a terminal reaches the whole process group, the gateway included: pass on only the
    // signals sent to this process alone, so the gateway does not see a second one.
    process.on(signal, () => {
      if (signal !== 'SIGINT' || !process.stdin.isTTY) child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + (require('node:os').constants.signals[signal] ?? 0) : 1)));
}
