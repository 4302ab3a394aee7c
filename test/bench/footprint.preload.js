'use strict';
// Where a gateway's memory goes (issue 23, item 4). Preload it into the built gateway:
//   NESTCLAW_FOOTPRINT_OUT=/tmp/fp.json node -r ./test/bench/footprint.preload.js dist/apps/gateway/main.js
// then `kill -USR2 <pid>` when it idles (or after some turns). It writes: process.memoryUsage(), V8's
// heap spaces, each external package the bundle required (time, RSS / heap / external growth while it
// loaded, including what it loaded in turn), the largest mappings of /proc/self/smaps by RSS (the
// native libraries' touched pages show here, e.g. LanceDB's), and the count of loaded files per package.
// With NESTCLAW_FOOTPRINT_HEAP=/tmp/x.heapsnapshot it also writes a heap snapshot.
const Module = require('node:module');
const { writeFileSync, readFileSync } = require('node:fs');
const v8 = require('node:v8');
const loads = [];
const origLoad = Module._load;
let depth = 0;
Module._load = function (request, parent, isMain) {
  const top = depth === 0 && parent && /apps\/gateway\/main\.js$/.test(parent.filename) && !request.startsWith('node:');
  if (isMain) return origLoad.apply(this, arguments);
  if (!top) {
    depth++;
    try {
      return origLoad.apply(this, arguments);
    } finally {
      depth--;
    }
  }
  const t0 = process.hrtime.bigint();
  const r0 = process.memoryUsage();
  depth++;
  try {
    return origLoad.apply(this, arguments);
  } finally {
    depth--;
    const r1 = process.memoryUsage();
    loads.push({
      request,
      ms: Number(process.hrtime.bigint() - t0) / 1e6,
      rssMb: (r1.rss - r0.rss) / 2 ** 20,
      heapMb: (r1.heapUsed - r0.heapUsed) / 2 ** 20,
      extMb: (r1.external - r0.external) / 2 ** 20,
      at: Number(process.uptime().toFixed(3)),
    });
  }
};
process.on('SIGUSR2', () => {
  const mu = process.memoryUsage();
  const pkgs = {};
  for (const f of Object.keys(require.cache)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f);
    const k = m ? m[1] : f.replace(/.*\/(dist|apps|libs)\//, '$1/');
    pkgs[k] = (pkgs[k] || 0) + 1;
  }
  const smaps = readFileSync('/proc/self/smaps', 'utf8');
  const byMap = {};
  let name = '';
  for (const line of smaps.split('\n')) {
    const h = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (h) {
      name = h[1] || '[anon]';
      continue;
    }
    const r = /^Rss:\s+(\d+) kB/.exec(line);
    if (r) {
      const k = name.replace(/.*node_modules\//, 'nm/');
      byMap[k] = (byMap[k] || 0) + Number(r[1]) / 1024;
    }
  }
  const top = Object.entries(byMap)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([k, v]) => [k, Math.round(v * 10) / 10]);
  const spaces = v8
    .getHeapSpaceStatistics()
    .map((s) => [
      s.space_name,
      Math.round((s.space_used_size / 2 ** 20) * 10) / 10,
      Math.round((s.physical_space_size / 2 ** 20) * 10) / 10,
    ]);
  writeFileSync(
    process.env.NESTCLAW_FOOTPRINT_OUT || 'footprint.json',
    JSON.stringify(
      {
        mu: Object.fromEntries(Object.entries(mu).map(([k, v]) => [k, Math.round((v / 2 ** 20) * 10) / 10])),
        spaces,
        loads,
        smapsTop: top,
        pkgs,
      },
      null,
      1,
    ),
  );
  if (process.env.NESTCLAW_FOOTPRINT_HEAP) v8.writeHeapSnapshot(process.env.NESTCLAW_FOOTPRINT_HEAP);
});
