#!/usr/bin/env node
'use strict';
// A coding CLI's hooks run this when the CLI bridge starts it (libs/cli-bridge/src/hooks/): the event
// becomes one line of <dir>/events.jsonl, which the bridge reads to know the CLI finished, what it
// answered and which tool it runs. Claude Code and Gemini CLI give the event as JSON on stdin (Gemini
// wants JSON back: `--json` prints `{}`); Codex's notify program gets it as its last argument. It
// always exits 0 and prints no decision, so it can never change what the CLI does.
//   nestclaw-cli-hook.js [<dir>] [--json] [<event JSON>]
// Without <dir> it reports to $NESTCLAW_CLI_HOOK_DIR, which the bridge sets for each CLI it starts: so the
// hooks can live in the CLI's own settings (README, "Drive your coding CLI from chat"), and do nothing
// in a run of that CLI the bridge did not start.
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');

const MAX_INPUT = 8 * 1024 * 1024;
const args = process.argv.slice(2);
const named = args[0] && !args[0].startsWith('-') && !args[0].startsWith('{') ? args.shift() : undefined;
const dir = named || process.env.NESTCLAW_CLI_HOOK_DIR;
const replyJson = args.includes('--json');
const given = args.find((a) => a.startsWith('{'));

function report(input) {
  try {
    const event = JSON.parse(input);
    if (dir && event && typeof event === 'object') {
      appendFileSync(join(dir, 'events.jsonl'), `${JSON.stringify({ ...event, received_at: Date.now() })}\n`, { mode: 0o600 });
    }
  } catch {
    // Not JSON, or the folder is gone (the session was ended): nothing to report.
  }
  if (replyJson) process.stdout.write('{}');
}

if (given !== undefined) {
  // Codex: the event is the argument, and stdin may be a terminal that never ends.
  report(given);
} else {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    if (input.length < MAX_INPUT) input += chunk;
  });
  process.stdin.on('end', () => report(input));
}
