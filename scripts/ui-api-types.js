'use strict';
// The control UI's API types from the gateway's OpenAPI document: reads the document (JSON) on
// stdin, prints TypeScript (openapi-typescript) on stdout. test/e2e/openapi.e2e-spec.ts runs it on
// the live /v1/openapi.json and fails when apps/ui/src/api-schema.gen.ts differs (it rewrites the
// file with NESTCLAW_UPDATE_GENERATED=1). A process of its own: openapi-typescript's dependencies
// are ES modules, which Jest's module loader does not take.
const { default: openapiTS, astToString } = require('openapi-typescript');

const UPDATE = 'NESTCLAW_UPDATE_GENERATED=1 npm run test:e2e -- test/e2e/openapi.e2e-spec.ts';

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const ast = await openapiTS(document, { alphabetize: true });
  process.stdout.write(
    `/**\n * Generated from the gateway's /v1/openapi.json by scripts/ui-api-types.js: do not edit.\n` +
      ` * Regenerate: ${UPDATE}\n */\n/* eslint-disable */\n` +
      astToString(ast),
  );
}

main().catch((e) => {
  process.stderr.write(`ui-api-types: ${e.stack ?? e}\n`);
  process.exit(1);
});
