#!/usr/bin/env node
'use strict';
// The installed command. All logic is in dist/src/main.js (built by `npm run build`).
require('../dist/src/main.js').main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { process.stderr.write(`kube-proxy-native: ${err && err.stack || err}\n`); process.exit(1); },
);
