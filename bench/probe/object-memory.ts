// What the watchers and the model hold for a cluster, and what decoding an object costs, with the
// whole object decoded by client-node's ObjectSerializer (as before kept-fields.ts) against the kept
// fields. Not a test and not part of `npm run bench`: run it by hand, it prints a table.
//
//   node --expose-gc dist/bench/probe/object-memory.js [--services 44000] [--endpoints 6] [--mix realistic|lean]
//
// Each figure comes from its own child process: the real Reflectors (Services, EndpointSlices) list
// the cluster in pages of 500 from JSON text made on demand (as the API server's answer arrives) and
// feed a ProxyState, which then takes its changes (the state after the first sync); then the heap is
// measured after two full GCs. `model only` decodes the same way but keeps no Reflector: what the model
// alone holds. realistic: objects as test/k8s/realistic-objects.ts makes them (managedFields,
// last-applied, targetRefs); lean: bench/pipeline/k8s-objects.ts (only what the model reads).
import { spawnSync } from 'node:child_process';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import type { KubernetesObject, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { ProxyState } from '../../src/core/proxy-state';
import { Reflector } from '../../src/k8s/reflector';
import { decodeObject, type ResourceClient } from '../../src/k8s/resources';
import { shapeProblem } from '../../src/k8s/shape-check';
import { realService, realSlice } from '../../test/k8s/realistic-objects';
import { syntheticService, type SynthService } from '../lib/cluster';
import { serviceObject, sliceObject } from '../pipeline/k8s-objects';

type Decoding = 'whole' | 'kept';
type Mix = 'realistic' | 'lean';
interface Args { services: number; endpoints: number; mix: Mix }
interface ChildResult { heapMiB: number; rssMiB: number; maxRssMiB: number; listS: number; ports: number; jsonMiB: number }

const PAGE = 500;
const silent = { warn: () => undefined };

function parseArgs(argv: string[]): Args & { child?: string } {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const mix = (get('mix') ?? 'realistic') as Mix;
  if (mix !== 'realistic' && mix !== 'lean') throw new Error(`--mix: realistic or lean, got ${mix}`);
  return { services: Number(get('services') ?? 44_000), endpoints: Number(get('endpoints') ?? 6), mix, child: get('child') };
}

function objects(s: SynthService, mix: Mix): { svc: unknown; slice: unknown } {
  if (mix === 'lean') return { svc: serviceObject(s), slice: sliceObject(s) };
  const port = { name: 'http', protocol: 'TCP', port: s.port, targetPort: 8080, ...(s.nodePort ? { nodePort: s.nodePort } : {}) };
  return {
    svc: realService(s.namespace, s.name, { type: s.nodePort ? 'NodePort' : 'ClusterIP', clusterIP: s.clusterIP, clusterIPs: [s.clusterIP], ipFamilies: ['IPv4'], ports: [port] }),
    slice: realSlice(s.namespace, s.name, 'abcde', 'IPv4', [{ name: 'http', protocol: 'TCP', port: 8080 }],
      s.endpoints.map((ep, i) => ({ ip: ep.ip, node: `node-${(s.index + i) % 500}`, zone: `zone-${(s.index + i) % 3}` }))),
  };
}

const MODEL_TYPE = { services: 'V1Service', endpointSlices: 'V1EndpointSlice' } as const;

/** Before kept-fields.ts: the shape check, then the whole object as client-node's model classes. */
function decodeWhole(resource: keyof typeof MODEL_TYPE, raw: unknown): KubernetesObject {
  const problem = shapeProblem(raw, MODEL_TYPE[resource]);
  if (problem) throw new Error(problem);
  return ObjectSerializer.deserialize(raw, MODEL_TYPE[resource], '') as KubernetesObject;
}

const decoder = (d: Decoding) => (resource: keyof typeof MODEL_TYPE, raw: unknown): KubernetesObject =>
  d === 'whole' ? decodeWhole(resource, raw) : decodeObject(resource, raw);

/** One page of the list as JSON text, made when asked for (the whole cluster as text is never held). */
function pageText(a: Args, resource: keyof typeof MODEL_TYPE, page: number): string {
  const spec = { services: a.services, endpointsPerService: a.endpoints, nodePortShare: 0.1 };
  const items: unknown[] = [];
  for (let i = page * PAGE; i < Math.min(a.services, (page + 1) * PAGE); i++) {
    const o = objects(syntheticService(i, spec), a.mix);
    items.push(resource === 'services' ? o.svc : o.slice);
  }
  return JSON.stringify({ metadata: { resourceVersion: '1' }, items });
}

/** A ResourceClient serving the synthetic cluster; its watch stays open, empty, until aborted. */
function fakeClient<T extends KubernetesObject>(a: Args, resource: keyof typeof MODEL_TYPE, decode: ReturnType<typeof decoder>, bytes: { n: number }): ResourceClient<T> {
  return {
    name: resource,
    list: async (o) => {
      const page = Number(o.continueToken ?? 0);
      const text = pageText(a, resource, page);
      bytes.n += text.length;
      const raw = JSON.parse(text) as { items: unknown[] };
      const next = (page + 1) * PAGE < a.services ? String(page + 1) : undefined;
      return { items: raw.items.map((r) => decode(resource, r) as T), resourceVersion: '1', continueToken: next, rejected: [] };
    },
    watch: () => {
      let abort = (): void => undefined;
      const done = new Promise<'aborted'>((resolve) => (abort = () => resolve('aborted')));
      return { done, abort };
    },
    fromJSON: (raw) => decode(resource, raw) as T,
  };
}

const gcNow = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
};
const mib = (b: number): number => b / 1024 / 1024;

/** In the child: list both resources through Reflectors (or straight into the model), take, measure. */
async function child(a: Args, what: string): Promise<ChildResult> {
  gcNow();
  const base = process.memoryUsage().heapUsed;
  const state = new ProxyState({ nodeName: 'node-0', ipFamilies: ['IPv4'], log: silent });
  const decode = decoder(what === 'whole' ? 'whole' : 'kept');
  const bytes = { n: 0 };
  const t0 = process.hrtime.bigint();
  const reflectors: Array<Reflector<KubernetesObject>> = [];
  for (const resource of ['services', 'endpointSlices'] as const) {
    const client = fakeClient<KubernetesObject>(a, resource, decode, bytes);
    const deliver = resource === 'services' ? (k: 'add' | 'update' | 'delete', o: KubernetesObject) => state.onService(k, o as V1Service)
      : (k: 'add' | 'update' | 'delete', o: KubernetesObject) => state.onEndpointSlice(k, o as V1EndpointSlice);
    if (what === 'model') {
      for (let token: string | undefined = '0'; token !== undefined;) {
        const p = await client.list({ continueToken: token });
        for (const o of p.items) deliver('add', o);
        token = p.continueToken;
      }
      continue;
    }
    await new Promise<void>((synced) => {
      const r = new Reflector<KubernetesObject>({ client, handler: { add: (o) => deliver('add', o), update: (o) => deliver('update', o), delete: (o) => deliver('delete', o), synced } });
      reflectors.push(r);
      r.start();
    });
  }
  const ports = state.takeChanges().snapshot.services.size;
  const listS = Number(process.hrtime.bigint() - t0) / 1e9;
  gcNow();
  const heapMiB = mib(process.memoryUsage().heapUsed - base);
  const rssMiB = mib(process.memoryUsage().rss);
  for (const r of reflectors) r.stop();
  return { heapMiB, rssMiB, maxRssMiB: process.resourceUsage().maxRSS / 1024, listS, ports, jsonMiB: mib(bytes.n) };
}

/**
 * µs per object to decode parsed JSON (JSON.parse excluded: the same either way): the best of 5
 * rounds, each timing every method once in turn over fresh copies of the same objects, after a GC.
 */
function decodeCost(a: Args): Record<string, number> {
  const spec = { services: 2000, endpointsPerService: a.endpoints, nodePortShare: 0.1 };
  const text = JSON.stringify(Array.from({ length: 2000 }, (_, i) => objects(syntheticService(i, spec), a.mix)));
  const methods: Record<string, (resource: keyof typeof MODEL_TYPE, raw: unknown) => unknown> = {
    'shape check only': (r, raw) => shapeProblem(raw, MODEL_TYPE[r]),
    'whole (shape check + ObjectSerializer)': decoder('whole'),
    'kept (shape check + pick)': decoder('kept'),
  };
  const best: Record<string, number> = {};
  for (let round = 0; round < 5; round++) {
    for (const [name, fn] of Object.entries(methods)) {
      const copies = JSON.parse(text) as Array<{ svc: unknown; slice: unknown }>;
      const out: unknown[] = [];
      gcNow();
      const t0 = process.hrtime.bigint();
      for (const o of copies) out.push(fn('services', o.svc), fn('endpointSlices', o.slice));
      best[name] = Math.min(best[name] ?? Infinity, Number(process.hrtime.bigint() - t0) / 1e3 / out.length);
    }
  }
  return best;
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  if (a.child) {
    process.stdout.write(JSON.stringify(await child(a, a.child)));
    return;
  }
  const one = JSON.parse(JSON.stringify(objects(syntheticService(1, { services: 2, endpointsPerService: a.endpoints, nodePortShare: 0.1 }), a.mix)));
  console.log(`${a.services} Services x ${a.endpoints} endpoints, ${a.mix} objects: a Service ${JSON.stringify(one.svc).length} B of JSON, ` +
    `kept ${JSON.stringify(decodeObject('services', one.svc)).length} B; a slice ${JSON.stringify(one.slice).length} B, kept ${JSON.stringify(decodeObject('endpointSlices', one.slice)).length} B`);
  console.log('| held | heap after GC (MiB) | RSS (MiB) | peak RSS (MiB) | list + take (s) |\n|---|---|---|---|---|');
  // The Reflectors and the model are this build's: at this branch's head the cache keeps metadata only,
  // so `whole` differs from `kept` only by what the handlers are given and the decoding's garbage.
  for (const [what, label] of [['whole', 'Reflectors + model, given whole objects (ObjectSerializer)'], ['kept', 'Reflectors + model, given kept fields'], ['model', 'model only (kept fields, no Reflector)']]) {
    const run = spawnSync(process.execPath, ['--expose-gc', __filename, ...process.argv.slice(2), '--child', what], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (run.status !== 0) throw new Error(`child ${what} failed: ${run.stderr}`);
    const r = JSON.parse(run.stdout) as ChildResult;
    console.log(`| ${label} | ${r.heapMiB.toFixed(1)} | ${r.rssMiB.toFixed(0)} | ${r.maxRssMiB.toFixed(0)} | ${r.listS.toFixed(2)} |  (${r.ports} ServicePorts, ${r.jsonMiB.toFixed(1)} MiB of JSON listed)`);
  }
  console.log('\n| decode (per object, Services and slices alike) | µs |\n|---|---|');
  for (const [k, v] of Object.entries(decodeCost(a))) console.log(`| ${k} | ${v.toFixed(2)} |`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
