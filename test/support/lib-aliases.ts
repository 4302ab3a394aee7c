import Module from 'node:module';
import { join, resolve } from 'node:path';

/**
 * Jest's globalSetup runs outside its module registry, so moduleNameMapper does not apply there:
 * map `@nestclaw/<lib>` to the lib's source entry for code loaded by global setup. Import first.
 */
const ROOT = resolve(__dirname, '../..');
const loader = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string; __nestclawAliases?: true };
if (!loader.__nestclawAliases) {
  const resolveFilename = loader._resolveFilename;
  loader._resolveFilename = function (request: string, ...rest: unknown[]) {
    const lib = /^@nestclaw\/([a-z-]+)$/.exec(request);
    return resolveFilename.call(this, lib ? join(ROOT, 'libs', lib[1], 'src') : request, ...rest);
  };
  loader.__nestclawAliases = true;
}
