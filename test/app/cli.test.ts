// The installed command end to end: a child process per case, as an operator runs it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withNetns } from '../helpers/netns';
import { REPO_ROOT } from '../helpers/topology';
import { TestApiServer } from '../apiserver/server';
import { endpointSlice, namespace, node, service } from '../traffic/fixtures';

const BIN = path.join(REPO_ROOT, 'bin', 'kube-proxy-native.js');

function run(args: string[], netns?: string) {
  const cmd = netns ? ['ip', ['netns', 'exec', netns, process.execPath, BIN, ...args]] as const : [process.execPath, [BIN, ...args]] as const;
  const r = spawnSync(cmd[0], [...cmd[1]], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Starts the proxy in `netns` (an API server that is never there), waits until `until` is seen on its
 *  output, then stops it; returns what it wrote. */
function startAndStop(args: string[], netns: string, until: RegExp): Promise<{ out: string; err: string }> {
  const child = spawn('ip', ['netns', 'exec', netns, process.execPath, BIN, '--master=http://127.0.0.1:9', '--hostname-override=node-a',
    ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`not seen in 30 s: ${until}\nstdout: ${out}\nstderr: ${err}`)); }, 30_000);
    const check = () => { if (until.test(out + err)) child.kill('SIGTERM'); };
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); check(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); check(); });
    child.on('exit', () => { clearTimeout(timer); resolve({ out, err }); });
  });
}

/** As run(), without blocking this process (whose test API server the command talks to). */
function runAsync(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => child.on('close', (code) => { clearTimeout(timer); resolve({ code, out, err }); }));
}

const NO_EFFECT = /flags accepted for compatibility but without effect here: --profiling, --boot-id-file \(/;

describe('kube-proxy-native command', () => {
  it('prints its version and exits 0', () => {
    const r = run(['--version']);
    assert.equal(r.code, 0);
    assert.match(r.out, /^kube-proxy-native v\d+\.\d+\.\d+/);
  });

  it('--help lists upstream flags and says IPVS is deprecated in favour of nftables', () => {
    const r = run(['--help']);
    assert.equal(r.code, 0);
    for (const flag of ['--config', '--cleanup', '--proxy-mode', '--conntrack-max-per-core', '--ipvs-scheduler']) assert.ok(r.out.includes(flag), flag);
    assert.match(r.out, /IPVS[^\n]*deprecated[^\n]*nftables/i);
  });

  it('names the flag of a bad value and exits non-zero without starting', () => {
    const r = run(['--iptables-masquerade-bit=40']);
    assert.equal(r.code, 1);
    assert.match(r.err, /--iptables-masquerade-bit/);
  });

  it('migrates a v1alpha1 file to v1alpha2 with --write-config-to', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-cli-'));
    const src = path.join(dir, 'old.yaml');
    const dst = path.join(dir, 'new.yaml');
    fs.writeFileSync(src, 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\nclusterCIDR: 10.244.0.0/16\nconntrack:\n  maxPerCore: 1000\n');
    const r = run(['--config', src, '--write-config-to', dst]);
    assert.equal(r.code, 0, r.err);
    const out = fs.readFileSync(dst, 'utf8');
    assert.match(out, /apiVersion: kubeproxy\.config\.k8s\.io\/v1alpha2/);
    assert.match(out, /clusterCIDRs:\s*\n\s*- 10\.244\.0\.0\/16/);
    assert.match(out, /linux:[\s\S]*conntrack:[\s\S]*maxPerCore: 1000/);
  });

  it('--cleanup removes both kube-proxy tables in its namespace and exits 0, also when nothing is left', async () => {
    await withNetns(async (ns) => {
      ns.nft('add', 'table', 'ip', 'kube-proxy');
      ns.nft('add', 'table', 'ip6', 'kube-proxy');
      ns.nft('add', 'table', 'ip', 'someone-else');
      const first = run(['--cleanup'], ns.name);
      assert.equal(first.code, 0, first.err);
      assert.deepEqual(ns.nft('list', 'tables').trim().split('\n'), ['table ip someone-else']);
      const again = run(['--cleanup'], ns.name);
      assert.equal(again.code, 0, again.err);
    });
  });

  it('--diff without --dry-run is a flag error; --dry-run refuses the ipvs mode, saying what it compiles', () => {
    const diff = run(['--diff']);
    assert.equal(diff.code, 1);
    assert.match(diff.err, /--diff: only with --dry-run/);
    const ipvs = run(['--dry-run', '--proxy-mode=ipvs', '--master=http://127.0.0.1:9']);
    assert.equal(ipvs.code, 1);
    assert.equal(ipvs.out, '');
    assert.match(ipvs.err, /kube-proxy-native: --dry-run: it compiles the nftables mode's ruleset only, and the configured proxy mode is "ipvs"/);
  });

  it('--dry-run prints only the script on stdout, even with info lines split to stdout, and exits 0', async () => {
    const api = new TestApiServer({ bookmarkIntervalMs: 0 });
    await api.start();
    try {
      api.create('nodes', node('node-a', '192.0.2.10'));
      api.create('namespaces', namespace('default'));
      const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
      api.create('services', service('web', { clusterIP: '10.96.0.10', ports }));
      api.create('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: [{ ip: '10.244.1.5' }] }));
      const r = await runAsync(['--dry-run', `--master=${api.url}`, '--hostname-override=node-a', '--v=4',
        '--feature-gates=LoggingAlphaOptions=true', '--log-text-split-stream']);
      assert.equal(r.code, 0, r.err);
      const lines = r.out.trimEnd().split('\n');
      assert.ok(lines.every((l) => /^(add|#) /.test(l)), r.out);
      assert.ok(lines.includes('add element ip kube-proxy cluster-ip-ports { 10.96.0.10 . tcp . 80 }'), r.out);
      assert.match(lines.at(-1)!, /^# dry run: ip: .*; ip6: .*; \d+ bytes$/);
      assert.match(r.err, /^I\d{4} /m, 'the log lines went to stderr');
      assert.ok(api.requests.every((q) => q.method === 'GET'), 'it only read from the API server (no Events posted)');
    } finally {
      await api.stop();
    }
  });

  it('logs klog text lines to stderr by default, and names the flags without effect in one line (upstream default: text)', async () => {
    await withNetns(async (ns) => {
      const r = await startAndStop(['--profiling', '--boot-id-file=/proc/sys/kernel/random/boot_id'], ns.name, NO_EFFECT);
      assert.equal(r.out, '', 'nothing on stdout without a split stream');
      const lines = r.err.split('\n').filter((l) => NO_EFFECT.test(l));
      assert.equal(lines.length, 1, r.err);
      assert.match(lines[0], /^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ kube-proxy-native\] "flags accepted/);
    });
  });

  it('--log-text-split-stream (with LoggingAlphaOptions) sends info lines to stdout, as component-base does', async () => {
    await withNetns(async (ns) => {
      const r = await startAndStop(['--feature-gates=LoggingAlphaOptions=true', '--log-text-split-stream', '--profiling', '--boot-id-file=/x'], ns.name, NO_EFFECT);
      assert.match(r.out, NO_EFFECT);
      assert.doesNotMatch(r.err, NO_EFFECT);
      for (const l of r.out.split('\n').filter(Boolean)) assert.match(l, /^I/, 'only info lines on stdout');
    });
  });
});
