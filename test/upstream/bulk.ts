// Many objects fast: kubectl creates one at a time (about 20-50 a second); this POSTs them through the
// REST API as the admin (exempt from APF), 32 at a time with one `curl --parallel`, in the control
// plane's namespace.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { controlPlane } from './control-plane';
import { getJson } from './kubectl';

/** POSTs each object to its collection `urlPath` (e.g. /api/v1/namespaces/NS/services); throws unless every answer is 201. */
export function createMany(urlPath: string, objects: object[]): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-up-bulk-'));
  try {
    parallel(dir, objects.map((o, i) => {
      const file = path.join(dir, `${i}.json`);
      fs.writeFileSync(file, JSON.stringify(o));
      return { url: urlPath, lines: [`data-binary = "@${file}"`] };
    }), '201');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A plain ClusterIP Service (port 80 to 8080) per name in `ns`, created in bulk; their ClusterIPs, which must all differ. */
export function createServices(ns: string, names: readonly string[]): string[] {
  createMany(`/api/v1/namespaces/${ns}/services`, names.map((name) => ({
    apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
  })));
  const ips: string[] = getJson(['services', '-n', ns]).items.map((s: { spec: { clusterIP: string } }) => s.spec.clusterIP);
  if (new Set(ips).size !== names.length) throw new Error(`${names.length} Services in ${ns}, but ${new Set(ips).size} distinct ClusterIPs`);
  return ips;
}

/** DELETEs `urlPath/NAME` for each name; throws unless every answer is 200. */
export function deleteMany(urlPath: string, names: string[]): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-up-bulk-'));
  try {
    parallel(dir, names.map((n) => ({ url: `${urlPath}/${n}`, lines: ['request = "DELETE"'] })), '200');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function parallel(dir: string, requests: Array<{ url: string; lines: string[] }>, want: string): void {
  const cp = controlPlane();
  // Each block names everything: `next` resets the options of the blocks before it.
  const common = [`cacert = "${cp.caFile}"`, `header = "Authorization: Bearer ${cp.adminToken}"`, 'header = "Content-Type: application/json"',
    'output = "/dev/null"', 'write-out = "%{http_code}\\n"', 'silent'];
  const config = requests.map((q) => [`url = "${cp.server}${q.url}"`, ...q.lines, ...common].join('\n')).join('\nnext\n');
  fs.writeFileSync(path.join(dir, 'curl.conf'), `${config}\n`);
  const r = spawnSync('ip', ['netns', 'exec', cp.netns, 'curl', '--parallel', '--parallel-max', '32', '-K', path.join(dir, 'curl.conf')],
  { encoding: 'utf8', maxBuffer: 16 << 20, timeout: 60_000 });
  const codes = r.stdout.trim().split('\n');
  const bad = codes.filter((c) => c !== want);
  if (codes.length !== requests.length || bad.length > 0) {
    throw new Error(`${requests.length} requests, ${codes.length} answers, not ${want}: ${bad.slice(0, 5).join(', ')} ${r.stderr}`);
  }
}
