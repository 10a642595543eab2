// A node --test reporter for runs at --test-concurrency=1: one line per test file, "seconds<TAB>failed
// top-level tests<TAB>file", slowest first. A file's time runs from the previous file's last event to its
// own last one (its process start and imports included). scripts/test.sh prints the slowest of each run:
// where the suite's time goes, to keep CI's budget (docs/testing.md).
import { relative, resolve } from 'node:path';

export default async function* fileDurations(source) {
  const last = new Map();
  const failed = new Map();
  const started = Date.now();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const key = resolve(file);
    last.set(key, Date.now());
    if (event.type === 'test:fail' && event.data.nesting === 0) failed.set(key, (failed.get(key) ?? 0) + 1);
  }
  const rows = [];
  let previous = started;
  for (const [file, end] of [...last].sort((a, b) => a[1] - b[1])) {
    rows.push([(end - previous) / 1000, failed.get(file) ?? 0, relative(process.cwd(), file)]);
    previous = end;
  }
  rows.sort((a, b) => b[0] - a[0]);
  for (const [seconds, fails, file] of rows) yield `${seconds.toFixed(1)}\t${fails}\t${file}\n`;
}
