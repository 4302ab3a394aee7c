import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Where the control UI's generated API types live (committed, like a migration). */
export const UI_API_TYPES_FILE = 'apps/ui/src/api-schema.gen.ts';

/** How to bring the file up to date; the drift check's failure says it. */
export const UI_API_TYPES_UPDATE = 'NESTCLAW_UPDATE_GENERATED=1 npm run test:e2e -- test/e2e/openapi.e2e-spec.ts';

/**
 * The UI's API types from the gateway's OpenAPI document (scripts/ui-api-types.js, openapi-typescript):
 * every path, its methods, parameters and JSON request body, as the gateway's validation pipes define
 * them. The UI's `api()` accepts only these paths and bodies, so a route renamed or a body changed in
 * the gateway breaks the UI's type check instead of a page at run time.
 */
export function uiApiTypes(document: unknown): string {
  return execFileSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'ui-api-types.js')], {
    input: JSON.stringify(document),
    encoding: 'utf8',
  });
}
