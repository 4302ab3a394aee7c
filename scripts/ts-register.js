'use strict';
// A tiny `.ts` require hook for scripts that run outside the webpack build (the benchmark and its
// fake LLM): each file is transpiled on load with typescript's transpileModule, no type check and
// no path aliases. Usage: node -r ./scripts/ts-register.js some-script.ts
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  isolatedModules: true,
  inlineSourceMap: true,
  inlineSources: true,
};

require.extensions['.ts'] = function compileTs(module, filename) {
  if (filename.split(path.sep).includes('node_modules')) {
    throw new Error(`ts-register: refusing to transpile ${filename} (a .ts file inside node_modules)`);
  }
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename, reportDiagnostics: false });
  module._compile(outputText, filename);
};
