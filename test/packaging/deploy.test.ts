// deploy/ read as the cluster would apply it: the RBAC grants exactly what the code requests, the
// DaemonSet is locked down, and the shipped kubeconfig and configuration, with the operator's API
// server address filled in, bring up a proxy that programs a node whose ruleset is empty.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { startProxy } from '../../src/app/proxy-app';
import { parseCommandLine } from '../../src/config';
import { ApiConnection } from '../../src/k8s/api-request';
import { EVENTS_GRANT } from '../../src/k8s/events-client';
import { loadKubeConfig, PLACEHOLDER_SERVER_HOST } from '../../src/k8s/kubeconfig';
import { resourceClients } from '../../src/k8s/resources';
import { createLogger } from '../../src/log';
import { makeTestCerts } from '../apiserver/certs';
import { TestApiServer } from '../apiserver/server';
import { withNetns } from '../helpers/netns';
import { REPO_ROOT } from '../helpers/topology';
import { eventually, freePort } from '../traffic/harness';
import { endpointSlice, namespace, node, service } from '../traffic/fixtures';

const docs = (file: string): any[] =>
  parseAllDocuments(fs.readFileSync(path.join(REPO_ROOT, 'deploy', file), 'utf8')).map((d) => d.toJSON()).filter(Boolean);
const rbac = docs('rbac.yaml');
const ds = docs('daemonset.yaml')[0];
const cm = docs('configmap.yaml')[0];
const pod = ds.spec.template.spec;
const container = pod.containers[0];
const mountPath: string = container.volumeMounts.find((m: any) => m.name === 'config').mountPath;

/** The API group of each resource the watchers request (src/k8s/resources.ts paths). */
const GROUP: Record<string, string> = { services: '', nodes: '', namespaces: '', endpointslices: 'discovery.k8s.io', servicecidrs: 'networking.k8s.io' };

describe('deploy/', () => {
  it('RBAC grants list and watch on exactly the resources the watchers request, create on events, and nothing else', () => {
    const role = rbac.find((d) => d.kind === 'ClusterRole');
    const granted = new Set<string>();
    const isEvents = (r: any): boolean => r.apiGroups.includes(EVENTS_GRANT.apiGroup) && r.resources.includes(EVENTS_GRANT.resource);
    const eventRules = role.rules.filter(isEvents);
    assert.deepEqual(eventRules, [{ apiGroups: [EVENTS_GRANT.apiGroup], resources: [EVENTS_GRANT.resource], verbs: [...EVENTS_GRANT.verbs] }]);
    for (const r of role.rules.filter((x: any) => !isEvents(x))) {
      assert.deepEqual([...r.verbs].sort(), ['list', 'watch'], `verbs of ${JSON.stringify(r)}`);
      for (const g of r.apiGroups) for (const res of r.resources) granted.add(`${g}/${res}`);
    }
    const kc = loadKubeConfig({ master: 'https://127.0.0.1:1' });
    const requested = Object.values(resourceClients(new ApiConnection(kc))).map((c) => `${GROUP[c.name]}/${c.name}`);
    assert.deepEqual([...granted].sort(), requested.sort());
    const binding = rbac.find((d) => d.kind === 'ClusterRoleBinding');
    assert.equal(binding.roleRef.name, role.metadata.name);
    assert.equal(binding.subjects[0].name, pod.serviceAccountName);
  });

  it('the DaemonSet runs with RuntimeDefault seccomp, NET_ADMIN only, a read-only root and a memory limit', () => {
    assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault');
    const sc = container.securityContext;
    assert.equal(sc.privileged, false);
    assert.equal(sc.allowPrivilegeEscalation, false);
    assert.equal(sc.readOnlyRootFilesystem, true);
    assert.deepEqual(sc.capabilities, { add: ['NET_ADMIN'], drop: ['ALL'] });
    assert.match(container.resources.requests.memory, /^\d+[MG]i$/);
    assert.match(container.resources.limits.memory, /^\d+[MG]i$/);
    assert.ok(container.command.includes(`--config=${mountPath}/config.yaml`));
    const items = pod.volumes.find((v: any) => v.name === 'config').configMap.items.map((i: any) => i.path).sort();
    assert.deepEqual(items, ['config.yaml', 'kubeconfig.conf']);
    assert.equal(container.livenessProbe.httpGet.path, '/livez');
  });

  it('a privileged init container runs --init-only with the same image and configuration (upstream\'s flag: then NET_ADMIN suffices)', () => {
    const init = pod.initContainers[0];
    assert.equal(init.image, container.image);
    assert.ok(init.command.includes('--init-only'));
    assert.ok(init.command.includes(`--config=${mountPath}/config.yaml`));
    assert.equal(init.securityContext.privileged, true);
    assert.equal(init.volumeMounts.find((m: any) => m.name === 'config').mountPath, mountPath);
    const cl = parseCommandLine(init.command.slice(1).map((a: string) => a.replace(mountPath, path.dirname(writeTemp('config.yaml', cm.data['config.yaml'])))));
    assert.deepEqual(cl.errors, []);
    assert.equal(cl.initOnly, true);
  });

  it('the configuration reads the kubeconfig from the mount and keeps metrics on loopback', () => {
    const cl = parseCommandLine(['--config', writeTemp('config.yaml', cm.data['config.yaml'])]);
    assert.deepEqual(cl.errors, []);
    assert.equal(cl.config.clientConnection.kubeconfig, `${mountPath}/kubeconfig.conf`);
    assert.match(cl.config.metricsBindAddress, /^127\.0\.0\.1:/);
  });

  it('the kubeconfig names a placeholder, not the kubernetes Service, and the proxy refuses to start with it', () => {
    const kubeconfig = cm.data['kubeconfig.conf'];
    assert.match(kubeconfig, new RegExp(`server: https://${PLACEHOLDER_SERVER_HOST}:6443`));
    assert.doesNotMatch(kubeconfig, /kubernetes\.default|10\.96\.0\.1\b/);
    const file = writeTemp('kubeconfig.conf', kubeconfig.replaceAll('/var/run/secrets/kubernetes.io/serviceaccount/', `${os.tmpdir()}/`));
    fs.writeFileSync(path.join(os.tmpdir(), 'token'), 'x');
    assert.throws(() => loadKubeConfig({ kubeconfig: file }), /still has the placeholder server .*API_SERVER_ADDRESS/);
  });

  it('filled in, the shipped kubeconfig (CA file, rotating token file) and configuration program an empty node', async () => {
    const certs = makeTestCerts();
    const api = new TestApiServer({ tls: { key: certs.serverKey, cert: certs.serverCert }, bookmarkIntervalMs: 0 });
    await api.start();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-deploy-'));
    fs.writeFileSync(path.join(dir, 'ca.crt'), certs.ca);
    fs.writeFileSync(path.join(dir, 'token'), 'sa-token-1');
    const port = new URL(api.url).port;
    fs.writeFileSync(path.join(dir, 'kubeconfig.conf'), cm.data['kubeconfig.conf']
      .replace(`${PLACEHOLDER_SERVER_HOST}:6443`, `127.0.0.1:${port}`)
      .replaceAll('/var/run/secrets/kubernetes.io/serviceaccount/', `${dir}/`));
    const config = (cm.data['config.yaml'] as string)
      .replace(`${mountPath}/kubeconfig.conf`, path.join(dir, 'kubeconfig.conf'))
      .replace(/healthzBindAddress: .*/, `healthzBindAddress: 127.0.0.1:${await freePort()}`)
      .replace(/metricsBindAddress: .*/, `metricsBindAddress: 127.0.0.1:${await freePort()}`);
    const cl = parseCommandLine(['--config', writeTemp('config.yaml', config), '--hostname-override', 'node-a']);
    assert.deepEqual(cl.errors, []);
    api.create('nodes', node('node-a', '198.18.0.1'));
    api.create('namespaces', namespace('default'));
    const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
    api.create('services', service('web', { clusterIP: '10.96.7.7', ports }));
    api.create('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: [{ ip: '10.244.1.5', nodeName: 'node-a' }] }));
    try {
      await withNetns(async (ns) => {
        assert.equal(ns.nft('list', 'ruleset').trim(), '', 'the node starts with an empty ruleset');
        const log = createLogger({ format: 'json', verbosity: 0, destination: { write: () => true } });
        const proxy = await startProxy({ config: cl.config, log, netns: ns.path });
        try {
          const programmed = () => { try { return /10\.96\.7\.7 \. tcp \. 80/.test(ns.nft('list', 'set', 'ip', 'kube-proxy', 'cluster-ip-ports')); } catch { return false; } };
          await eventually(programmed, 'the Service in the ruleset');
        } finally {
          await proxy.stop();
        }
      });
      assert.ok(api.requests.length > 0);
      assert.deepEqual([...new Set(api.requests.map((r) => r.authorization))], ['Bearer sa-token-1'], 'every request carried the token file');
    } finally {
      await api.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

function writeTemp(name: string, text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-deploy-')), name);
  fs.writeFileSync(file, text);
  return file;
}
