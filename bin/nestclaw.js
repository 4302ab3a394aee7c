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
require(entry);
