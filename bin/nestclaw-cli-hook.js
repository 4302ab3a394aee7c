#!/usr/bin/env node
'use strict';
// Claude Code runs this for its Stop and Notification hooks when the CLI bridge starts it
// (libs/cli-bridge/src/hooks/cli-hooks.ts): the hook's JSON input becomes one line of
// <dir>/events.jsonl, which the bridge reads to know the CLI finished and what it answered. It prints
// nothing and always exits 0, so it can never change what Claude Code does.
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');

const MAX_INPUT = 8 * 1024 * 1024;
const dir = process.argv[2];
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  if (input.length < MAX_INPUT) input += chunk;
});
process.stdin.on('end', () => {
  try {
    const event = JSON.parse(input);
    if (dir && event && typeof event === 'object') {
      appendFileSync(join(dir, 'events.jsonl'), `${JSON.stringify({ ...event, received_at: Date.now() })}\n`, { mode: 0o600 });
    }
  } catch {
    // Not JSON, or the folder is gone (the session was ended): nothing to report.
  }
});
