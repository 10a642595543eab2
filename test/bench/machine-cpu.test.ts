// The bench's account of who had the CPUs during a phase (bench/scale/machine-cpu.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMachineBusySeconds, phaseCpuLine, startPhaseCpu } from '../../bench/scale/machine-cpu';

test('/proc/stat: busy is user + nice + system + irq + softirq + steal, not idle or iowait', () => {
  const stat = 'cpu  100 20 300 9000 50 7 3 10 0 0\ncpu0 50 10 150 4500 25 3 1 5 0 0\n';
  assert.equal(parseMachineBusySeconds(stat), (100 + 20 + 300 + 7 + 3 + 10) / 100);
  assert.throws(() => parseMachineBusySeconds('intr 1 2 3\n'), /cpu line/);
});

test('a phase counts the CPU this process burns as the bench\'s, not as other processes\'', () => {
  const done = startPhaseCpu(process.pid);
  const until = performance.now() + 300;
  while (performance.now() < until) { /* burn 0.3 s on this core */ }
  const c = done();
  assert.ok(c.wallS >= 0.3);
  assert.ok(c.benchS >= 0.2, `bench ${c.benchS}`);
  // The "proxy" is this process too: /proc/PID/stat and process.cpuUsage() must agree (ticks are 10 ms).
  assert.ok(Math.abs(c.proxyS - c.benchS) <= 0.05, `proxy ${c.proxyS} vs bench ${c.benchS}`);
  assert.match(phaseCpuLine(c), /^other processes \d+\.\d CPU-s in \d+ s \(\d+\.\d% of one core\); the proxy/);
});
