#!/usr/bin/env node
'use strict';
/**
 * docker-compose.yml's one-shot `metrics-token` step: once nestclaw is healthy, gives Prometheus a
 * token with only the `metrics` scope, in the volume Prometheus reads its credentials file from, so
 * `docker compose up` scrapes with no file to create first. A token already there that still works
 * is kept (so every `up` does not pair a new one); a rotated or revoked one is replaced.
 *
 *   NESTCLAW_URL         the gateway (default http://nestclaw:3000)
 *   NESTCLAW_TOKEN       the owner token, else read from NESTCLAW_TOKEN_FILE (default /data/token)
 *   METRICS_TOKEN_FILE   where Prometheus reads it (default /secrets/metrics-token)
 *
 * Plain Node (no dependencies): it runs in the stock node image.
 */
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { dirname } = require('node:path');

const gateway = (process.env.NESTCLAW_URL || 'http://nestclaw:3000').replace(/\/+$/, '');
const out = process.env.METRICS_TOKEN_FILE || '/secrets/metrics-token';
const ownerTokenFile = process.env.NESTCLAW_TOKEN_FILE || '/data/token';

function fail(message) {
  process.stderr.write(`metrics-token: ${message}\n`);
  process.exit(1);
}

function ownerToken() {
  const fromEnv = (process.env.NESTCLAW_TOKEN || '').trim();
  if (fromEnv) return fromEnv;
  if (!existsSync(ownerTokenFile)) fail(`no owner token: ${ownerTokenFile} does not exist and NESTCLAW_TOKEN is not set`);
  return readFileSync(ownerTokenFile, 'utf8').trim();
}

function call(path, token, body) {
  return fetch(`${gateway}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

async function stillWorks(token) {
  const res = await call('/metrics', token);
  await res.arrayBuffer();
  return res.status === 200;
}

async function main() {
  const current = existsSync(out) ? readFileSync(out, 'utf8').trim() : '';
  if (current && (await stillWorks(current))) {
    process.stdout.write(`metrics-token: ${out} still works; kept\n`);
    return;
  }
  const created = await call('/v1/pair/codes', ownerToken(), { scopes: ['metrics'] });
  if (created.status !== 201) fail(`POST /v1/pair/codes answered ${created.status}: ${await created.text()}`);
  const { code } = await created.json();
  const paired = await call('/v1/pair', undefined, { code, name: 'prometheus (docker compose)' });
  if (paired.status !== 201) fail(`POST /v1/pair answered ${paired.status}: ${await paired.text()}`);
  const { token } = await paired.json();
  mkdirSync(dirname(out), { recursive: true });
  // Readable by Prometheus's user (nobody); the volume is mounted read-only there. Renamed in place, so a scrape never reads half a file.
  writeFileSync(`${out}.tmp`, token, { mode: 0o444 });
  renameSync(`${out}.tmp`, out);
  process.stdout.write(`metrics-token: wrote a token with the metrics scope to ${out}\n`);
}

main().catch((e) => fail(`${gateway}: ${e.cause?.message ?? e.message}`));
