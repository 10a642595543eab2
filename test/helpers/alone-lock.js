'use strict';
// Preloaded (node --require) into every test file's process when scripts/host-tests.sh runs the host
// suite under two Node.js runtimes side by side. Each file takes a lock on $KPN_TEST_LOCK before it
// runs: a shared one, or, for a file matching $KPN_TEST_ALONE (the suite's heaviest files: a 30,000
// Service sync under continuous traffic, a probe loop that keeps one CPU busy), an exclusive one, so
// such a file runs while the other run is between files and starts none. The lock is held on an open
// file description of this process until it exits. Without KPN_TEST_LOCK (a file run by hand, or one
// run only), and in the test runner's own process, it does nothing.
const lockFile = process.env.KPN_TEST_LOCK;
if (lockFile && process.env.NODE_TEST_CONTEXT) {
  const fs = require('node:fs');
  const { spawnSync } = require('node:child_process');
  const alone = !!process.env.KPN_TEST_ALONE && new RegExp(process.env.KPN_TEST_ALONE).test(process.argv[1] || '');
  const fd = fs.openSync(lockFile, 'r');
  // flock(1) locks its fd 3, which is this process's fd: the lock stays when flock exits.
  const r = spawnSync('flock', [alone ? '--exclusive' : '--shared', '3'], { stdio: ['ignore', 'ignore', 'inherit', fd] });
  if (r.status !== 0) throw new Error(`alone-lock: flock ${lockFile} failed: ${r.error ?? `exit ${r.status}`}`);
}
