// kubeproxy_native_memory_limit_bytes: the cgroup's limit, read as a container sees it under cgroup
// v2 and v1 (directories laid out like /proc and /sys, since the test must not make cgroups on the
// host), "no limit" leaving no sample, and this machine's own cgroup read the same way `cat` does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Registry } from 'prom-client';
import { readCgroupMemoryLimit, registerMemoryLimit } from '../../src/metrics/memory-limit';
import { parsePrometheusText, sample } from './prom-text';

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-cgroup-'));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), text);
  }
  return root;
}

test('cgroup v2: memory.max of the process\'s cgroup; "max" is no limit', () => {
  const root = tree({ 'proc/self/cgroup': '0::/kubepods/pod1/c1\n', 'sys/fs/cgroup/kubepods/pod1/c1/memory.max': '536870912\n' });
  assert.equal(readCgroupMemoryLimit(root), 536870912);
  fs.writeFileSync(path.join(root, 'sys/fs/cgroup/kubepods/pod1/c1/memory.max'), 'max\n');
  assert.equal(readCgroupMemoryLimit(root), undefined);
});

test('cgroup v2 in a cgroup namespace: the path is "/", the limit at the mount\'s root', () => {
  assert.equal(readCgroupMemoryLimit(tree({ 'proc/self/cgroup': '0::/\n', 'sys/fs/cgroup/memory.max': '268435456\n' })), 268435456);
});

test('cgroup v1: the memory controller\'s limit_in_bytes, at the path or (no cgroup namespace) the mount\'s root; 2^63-ish is no limit', () => {
  const lines = '5:cpu,cpuacct:/kubepods/x\n4:memory:/kubepods/pod2/c2\n0::/\n';
  assert.equal(readCgroupMemoryLimit(tree({ 'proc/self/cgroup': lines, 'sys/fs/cgroup/memory/kubepods/pod2/c2/memory.limit_in_bytes': '104857600\n' })), 104857600);
  assert.equal(readCgroupMemoryLimit(tree({ 'proc/self/cgroup': lines, 'sys/fs/cgroup/memory/memory.limit_in_bytes': '209715200\n' })), 209715200);
  assert.equal(readCgroupMemoryLimit(tree({ 'proc/self/cgroup': lines, 'sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n' })), undefined);
  assert.equal(readCgroupMemoryLimit(tree({})), undefined, 'no /proc/self/cgroup');
});

test('this machine: the same figure as the cgroup file of this process says (or none when unlimited)', () => {
  const own = fs.readFileSync('/proc/self/cgroup', 'utf8');
  const v1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(own)?.[1];
  const file = v1 !== undefined ? `/sys/fs/cgroup/memory${v1}/memory.limit_in_bytes` : `/sys/fs/cgroup${/^0::(.*)$/m.exec(own)?.[1]}/memory.max`;
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : 'max';
  const expected = text === 'max' || Number(text) >= 2 ** 60 ? undefined : Number(text);
  assert.equal(readCgroupMemoryLimit(), expected, `${file}: ${text}`);
});

test('the gauge: read on each scrape, absent while there is no limit', async () => {
  const registry = new Registry();
  let limit: number | undefined = 512 * 2 ** 20;
  registerMemoryLimit(registry, () => limit);
  assert.equal(sample(parsePrometheusText(await registry.metrics()), 'kubeproxy_native_memory_limit_bytes'), 512 * 2 ** 20);
  limit = undefined;
  assert.equal(sample(parsePrometheusText(await registry.metrics()), 'kubeproxy_native_memory_limit_bytes'), undefined);
  limit = 2 ** 30;
  assert.equal(sample(parsePrometheusText(await registry.metrics()), 'kubeproxy_native_memory_limit_bytes'), 2 ** 30);
});
