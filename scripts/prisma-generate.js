#!/usr/bin/env node
// Runs `prisma generate` without the native schema engine download, which fails offline.
// `generate` never uses that engine; Prisma only checks that the binary path exists.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
execFileSync(process.execPath, [require.resolve('prisma/build/index.js'), 'generate'], {
  cwd: root,
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
