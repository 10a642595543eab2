// The transactions fake-vs-kernel.test.ts runs against both the kernel and FakeKernel, in order:
// every kind of object and op the proxier uses, and each refusal the fake claims to model.
// `expect` is the kernel's answer (checked too, so no refusal case silently turns into a success).
import { rule, SetSpec, Transaction } from '../../src/native';

export const T = 'kp';
const SVC = 'service-ULMVA6XW-ns1/svc1/tcp/p80';
const EP1 = 'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80';
const EP2 = 'endpoint-BBBBBBBB-ns1/svc1/tcp/p80__10.180.0.2/80';

const v4svc = ['ipv4_addr', 'inet_proto', 'inet_service'] as SetSpec['key'];
export const SETS = {
  serviceIps: { name: 'service-ips', key: v4svc, map: 'verdict', comment: 'dispatch' },
  ports: { name: 'cluster-ip-ports', key: v4svc },
  ips: { name: 'cluster-ips', key: ['ipv4_addr'] },
  eps2: {
    name: 'endpoints-2', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'],
    typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport',
  },
  nodeportIps: { name: 'nodeport-ips', key: ['ipv4_addr'], interval: true },
  nodeports: { name: 'nodeports', key: ['inet_proto', 'inet_service'] },
  hairpin: { name: 'hairpin', key: ['ipv4_addr', 'ipv4_addr'] },
  affinity: { name: 'affinity', key: ['ipv4_addr', 'ipv4_addr', 'inet_service', 'ipv4_addr', 'inet_service'], timeout: true, dynamic: true, size: 8 },
  small: { name: 'small', key: ['inet_service'], size: 2 },
  fw: { name: 'fw', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'ipv4_addr'], interval: true },
  ifaces: { name: 'ifaces', key: ['ifname'] },
  services6: { name: 'service-ips', key: ['ipv6_addr', 'inet_proto', 'inet_service'], map: 'verdict' },
} satisfies Record<string, SetSpec>;

/** Rule handles differ between the two (the kernel spends handles on refused batches too). */
export interface Side { ruleHandle(chain: string, index: number): Promise<number> }
export interface Step { name: string; expect: string; build(side: Side): Transaction | Promise<Transaction> }

const tx = () => new Transaction();
/** A transaction that knows every set of the ip table (they exist from the first step on). */
function known(): Transaction {
  const t = new Transaction();
  for (const s of Object.values(SETS)) if (s !== SETS.services6) t.declareSet('ip', T, s);
  return t;
}
const r = () => rule('ip');
const goto = (chain: string) => ({ kind: 'goto' as const, chain });
const filterBase = (hook: 'input' | 'forward' | 'output', priority: number, policy?: 'accept' | 'drop') =>
  ({ type: 'filter' as const, hook, priority, ...(policy ? { policy } : {}) });

function objects(): Transaction {
  const t = tx().addTable('ip', T).addTable('ip6', T).addTable('ip', 'other');
  t.addChain('ip', T, { name: 'nat-prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100 } });
  t.addChain('ip', T, { name: 'nat-output', base: { type: 'nat', hook: 'output', priority: -100, policy: 'accept' } });
  t.addChain('ip', T, { name: 'nat-postrouting', base: { type: 'nat', hook: 'postrouting', priority: 100 } });
  t.addChain('ip', T, { name: 'filter-input', base: filterBase('input', -110) });
  t.addChain('ip', T, { name: 'filter-forward', base: filterBase('forward', -110, 'accept') });
  for (const name of ['services', 'cluster-ip-traffic', 'select-endpoint', 'mark-for-masquerade', 'masquerading', 'nodeport-traffic', SVC, EP1, EP2]) {
    t.addChain('ip', T, { name });
  }
  for (const s of Object.values(SETS)) if (s !== SETS.services6) t.addSet('ip', T, s);
  t.addElements('ip', T, SETS.nodeportIps.name, [{ key: ['192.168.0.0/24'] }, { key: ['10.0.0.7'] }]);
  t.addChain('ip6', T, { name: 'nat-prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100 } });
  t.addChain('ip6', T, { name: 'services' }).addSet('ip6', T, SETS.services6);
  t.addChain('ip', 'other', { name: 'keep' });
  return t;
}

function rules(): Transaction {
  const t = known();
  const add = (chain: string, b: ReturnType<typeof r>) => t.addRule('ip', T, chain, b.build());
  add('nat-prerouting', r().verdict({ kind: 'jump', chain: 'services' }));
  add('nat-output', r().verdict({ kind: 'jump', chain: 'services' }));
  add('nat-postrouting', r().verdict({ kind: 'jump', chain: 'masquerading' }));
  add('filter-input', r().ctState(['new']).daddrInSet(SETS.ips.name).reject());
  add('services', r().vmap(['daddr', 'l4proto', 'dport'], SETS.serviceIps.name));
  add('services', r().lookup(['daddr', 'l4proto', 'dport'], SETS.ports.name).verdict(goto('cluster-ip-traffic')));
  add('services', r().daddr('127.0.0.0/8', true).fibDaddrLocal().lookup(['l4proto', 'dport'], SETS.nodeports.name).verdict(goto('nodeport-traffic')));
  add('nodeport-traffic', r().daddrInSet(SETS.nodeportIps.name).verdict({ kind: 'jump', chain: 'mark-for-masquerade' }));
  add('nodeport-traffic', r().saddrInSet(SETS.ips.name, true).fibSaddrLocal().verdict({ kind: 'jump', chain: 'mark-for-masquerade' }));
  add('nodeport-traffic', r().l4proto('udp').dport(53).iifnamePrefix('veth').verdict({ kind: 'return' }));
  add('nat-postrouting', r().ctStatusDnat().lookup(['saddr', 'daddr'], SETS.hairpin.name).verdict({ kind: 'jump', chain: 'mark-for-masquerade' }));
  add('cluster-ip-traffic', r().saddr('10.0.0.0/16', true).verdict({ kind: 'jump', chain: 'mark-for-masquerade' }));
  add('cluster-ip-traffic', r().verdict(goto('select-endpoint')));
  add('select-endpoint', r().dnatMap(['daddr', 'l4proto', 'dport', { numgen: 2 }], SETS.eps2.name));
  add('mark-for-masquerade', r().markOr(0x4000));
  add('masquerading', r().markAnd(0x4000, 0).verdict({ kind: 'return' }));
  add('masquerading', r().markXor(0x4000));
  add('masquerading', r().masquerade(true));
  add(SVC, r().lookup(['saddr', 'daddr'], SETS.hairpin.name).verdict(goto(EP1)));
  add(SVC, r().numgenMod(2, 0).verdict(goto(EP1)));
  add(SVC, r().verdict(goto(EP2)));
  add(EP1, r().saddr('10.180.0.1').verdict({ kind: 'jump', chain: 'mark-for-masquerade' }).comment('hairpin'));
  add(EP1, r().dynsetUpdate(['saddr', { ip: '172.30.0.41' }, { port: 80 }, { ip: '10.180.0.1' }, { port: 80 }], SETS.affinity.name, 10800));
  add(EP1, r().l4proto('tcp').dnat('10.180.0.1', 80));
  add(EP2, r().iifname('eth0', true).counter().l4proto('tcp').dnat('10.180.0.2', 80));
  t.addRule('ip6', T, 'nat-prerouting', rule('ip6').verdict({ kind: 'jump', chain: 'services' }).build());
  t.declareSet('ip6', T, SETS.services6);
  t.addRule('ip6', T, 'services', rule('ip6').vmap(['daddr', 'l4proto', 'dport'], SETS.services6.name).build());
  return t;
}

function elements(): Transaction {
  const t = known();
  t.addElements('ip', T, SETS.serviceIps.name, [
    { key: ['172.30.0.41', 'tcp', 80], verdict: goto(SVC) }, { key: ['172.30.0.49', 'udp', 53], verdict: { kind: 'drop' } }]);
  t.addElements('ip', T, SETS.ports.name, [{ key: ['172.30.0.42', 'tcp', 80] }, { key: ['172.30.0.43', 'sctp', 9] }]);
  t.addElements('ip', T, SETS.ips.name, [{ key: ['172.30.0.41'] }, { key: ['172.30.0.42'] }]);
  t.addElements('ip', T, SETS.eps2.name, [
    { key: ['172.30.0.42', 'tcp', 80, 0], data: ['10.180.1.1', 8080] }, { key: ['172.30.0.42', 'tcp', 80, 1], data: ['10.180.1.2', 8080] }]);
  t.addElements('ip', T, SETS.nodeportIps.name, [{ key: ['192.168.2.0/23'] }, { key: ['255.255.255.255'] }]);
  t.addElements('ip', T, SETS.nodeports.name, [{ key: ['tcp', 30080] }]);
  t.addElements('ip', T, SETS.hairpin.name, [{ key: ['10.180.0.1', '10.180.0.1'] }]);
  t.addElements('ip', T, SETS.fw.name, [{ key: ['5.6.7.8', 'tcp', 443, '203.0.113.0/24'] }, { key: ['5.6.7.8', 'udp', 53, '0.0.0.0/0'] }]);
  t.addElements('ip', T, SETS.small.name, [{ key: [80] }, { key: [443] }]);
  t.addElements('ip', T, SETS.ifaces.name, [{ key: ['eth0'] }, { key: ['veth1234'] }]);
  t.declareSet('ip6', T, SETS.services6).addElements('ip6', T, SETS.services6.name, [{ key: ['fd00:30::41', 'tcp', 80], verdict: { kind: 'accept' } }]);
  return t;
}

export const STEPS: Step[] = [
  { name: 'tables, base chains, chains and sets of every kind; interval elements in a set made in the batch; another table whose chain the first one\'s dump must not list', expect: 'ok', build: objects },
  { name: 'rules of every kind the proxier writes', expect: 'ok', build: rules },
  { name: 'elements of every kind', expect: 'ok', build: elements },
  { name: 'the same elements again change nothing', expect: 'ok', build: elements },
  { name: 'a verdict-map key again with another verdict', expect: 'EEXIST',
    build: () => known().addElements('ip', T, SETS.serviceIps.name, [{ key: ['172.30.0.41', 'tcp', 80], verdict: { kind: 'accept' } }]) },
  { name: 'a data-map key again with other data', expect: 'EEXIST',
    build: () => known().addElements('ip', T, SETS.eps2.name, [{ key: ['172.30.0.42', 'tcp', 80, 0], data: ['10.180.1.9', 8080] }]) },
  { name: 'an element that is not there', expect: 'ENOENT', build: () => known().deleteElements('ip', T, SETS.ips.name, [{ key: ['172.30.0.99'] }]) },
  { name: 'the same element twice in one delete', expect: 'ENOENT',
    build: () => known().deleteElements('ip', T, SETS.ips.name, [{ key: ['172.30.0.42'] }, { key: ['172.30.0.42'] }]) },
  { name: 'a partial sync: changed elements deleted and added, a Service chain flushed and refilled', expect: 'ok',
    build: () => known()
      .deleteElements('ip', T, SETS.eps2.name, [{ key: ['172.30.0.42', 'tcp', 80, 1] }])
      .addElements('ip', T, SETS.eps2.name, [{ key: ['172.30.0.42', 'tcp', 80, 1], data: ['10.180.1.3', 8080] }])
      .deleteElements('ip', T, SETS.serviceIps.name, [{ key: ['172.30.0.49', 'udp', 53], verdict: { kind: 'drop' } }])
      .flushChain('ip', T, SVC).addRule('ip', T, SVC, r().verdict(goto(EP2)).build()) },
  { name: 'create of an existing table, chain and set: every refusal is reported', expect: 'EEXIST',
    build: () => tx().addTable('ip', T, { create: true }).addChain('ip', T, { name: 'services' }, { create: true })
      .addSet('ip', T, SETS.ips, { create: true }) },
  { name: 'missing table, chain, set and rule handle', expect: 'ENOENT',
    build: () => tx().deleteTable('ip', 'nope').flushTable('ip', 'nope').deleteChain('ip', T, 'nope').flushChain('ip', T, 'nope')
      .deleteSet('ip', T, 'nope').flushSet('ip', T, 'nope').addChain('ip', 'nope', { name: 'x' }).deleteRule('ip', T, 'services', 99999) },
  { name: 'delete a chain a rule jumps to', expect: 'EBUSY', build: () => tx().deleteChain('ip', T, 'mark-for-masquerade') },
  { name: 'delete a chain only a map element goes to', expect: 'EBUSY', build: () => tx().flushChain('ip', T, SVC).deleteChain('ip', T, SVC) },
  { name: 'delete a set a rule looks up', expect: 'EBUSY', build: () => tx().deleteSet('ip', T, SETS.ports.name) },
  { name: 'goto a base chain from a rule', expect: 'EOPNOTSUPP', build: () => tx().addRule('ip', T, 'services', r().verdict(goto('filter-input')).build()) },
  { name: 'goto a base chain from a map element', expect: 'EOPNOTSUPP',
    build: () => known().addElements('ip', T, SETS.serviceIps.name, [{ key: ['172.30.0.50', 'tcp', 80], verdict: goto('filter-input') }]) },
  { name: 'jump to a missing chain from a rule and from an element', expect: 'ENOENT',
    build: () => known().addRule('ip', T, 'services', r().verdict(goto('nope')).build())
      .addElements('ip', T, SETS.serviceIps.name, [{ key: ['172.30.0.50', 'tcp', 80], verdict: goto('nope') }]) },
  { name: 'a rule in a missing chain, and one that looks up a missing set', expect: 'ENOENT',
    build: () => tx().declareSet('ip', T, { name: 'nope', key: ['ipv4_addr'] }).addRule('ip', T, 'nope', r().verdict({ kind: 'accept' }).build())
      .addRule('ip', T, 'services', r().daddrInSet('nope').verdict({ kind: 'accept' }).build()) },
  { name: 'a base chain again with another priority', expect: 'EOPNOTSUPP', build: () => tx().addChain('ip', T, { name: 'filter-input', base: filterBase('input', 0) }) },
  { name: 'a base chain again with another hook', expect: 'EOPNOTSUPP', build: () => tx().addChain('ip', T, { name: 'filter-input', base: filterBase('output', -110) }) },
  { name: 'a base chain again with another type', expect: 'EEXIST',
    build: () => tx().addChain('ip', T, { name: 'nat-output', base: { type: 'route', hook: 'output', priority: -100 } }) },
  { name: 'a regular chain again as a base chain', expect: 'EEXIST', build: () => tx().addChain('ip', T, { name: 'services', base: filterBase('input', 0) }) },
  { name: 'a regular chain again as a base chain with a policy', expect: 'EOPNOTSUPP', build: () => tx().addChain('ip', T, { name: 'services', base: filterBase('input', 0, 'drop') }) },
  { name: 'a base chain again as a regular chain, and again with its own hook and a new policy', expect: 'ok',
    build: () => tx().addChain('ip', T, { name: 'filter-forward' }).addChain('ip', T, { name: 'filter-input', base: filterBase('input', -110, 'drop') }) },
  { name: 'a set again with another key type', expect: 'EEXIST', build: () => tx().addSet('ip', T, { ...SETS.ips, key: ['mark'] }) },
  { name: 'a set again with other flags', expect: 'EEXIST', build: () => tx().addSet('ip', T, { ...SETS.ips, timeout: true }) },
  { name: 'a set again with a size and a comment', expect: 'ok', build: () => tx().addSet('ip', T, { ...SETS.ips, size: 100, comment: 'again' }) },
  { name: 'a full set refuses one more', expect: 'ENFILE', build: () => known().addElements('ip', T, SETS.small.name, [{ key: [8080] }]) },
  { name: 'a full set takes one after one went in the same batch; its elements again cost no room', expect: 'ok',
    build: () => known().addElements('ip', T, SETS.small.name, [{ key: [80] }]).deleteElements('ip', T, SETS.small.name, [{ key: [443] }])
      .addElements('ip', T, SETS.small.name, [{ key: [8080] }]) },
  { name: 'a set again with a larger size: it applies once the batch commits', expect: 'ENFILE',
    build: () => known().addSet('ip', T, { ...SETS.small, size: 3 }).addElements('ip', T, SETS.small.name, [{ key: [22] }]) },
  { name: 'a set again with a larger size', expect: 'ok', build: () => tx().addSet('ip', T, { ...SETS.small, size: 3 }) },
  { name: 'the larger set takes one more', expect: 'ok', build: () => known().addElements('ip', T, SETS.small.name, [{ key: [22] }]) },
  { name: 'a set again without a size', expect: 'ok', build: () => tx().addSet('ip', T, { ...SETS.small, size: undefined }) },
  { name: 'it keeps the size it had', expect: 'ENFILE', build: () => known().addElements('ip', T, SETS.small.name, [{ key: [23] }]) },
  { name: 'dynset update of a set that is not dynamic', expect: 'EOPNOTSUPP',
    build: () => tx().declareSet('ip', T, { ...SETS.ips, timeout: true, dynamic: true }).addRule('ip', T, EP2, r().dynsetUpdate(['saddr'], SETS.ips.name, 60).build()) },
  { name: 'vmap on a plain set', expect: 'EINVAL',
    build: () => tx().declareSet('ip', T, { ...SETS.ips, map: 'verdict' }).addRule('ip', T, 'services', r().vmap(['daddr'], SETS.ips.name).build()) },
  { name: 'dnat map on a verdict map', expect: 'EINVAL',
    build: () => tx().declareSet('ip', T, { ...SETS.serviceIps, map: 'ipv4_addr' }).addRule('ip', T, 'select-endpoint', r().dnatMap(['daddr', 'l4proto', 'dport'], SETS.serviceIps.name).build()) },
  { name: 'an element whose key is longer than the set\'s', expect: 'EINVAL',
    build: () => tx().declareSet('ip', T, { ...SETS.ips, key: ['ipv6_addr'] }).addElements('ip', T, SETS.ips.name, [{ key: ['fd00::1'] }]) },
  { name: 'a verdict for a plain set', expect: 'EINVAL',
    build: () => tx().declareSet('ip', T, { ...SETS.ips, map: 'verdict' }).addElements('ip', T, SETS.ips.name, [{ key: ['10.1.1.1'], verdict: { kind: 'accept' } }]) },
  { name: 'data for a verdict map', expect: 'EINVAL',
    build: () => tx().declareSet('ip', T, { ...SETS.serviceIps, map: 'mark' }).addElements('ip', T, SETS.serviceIps.name, [{ key: ['10.1.1.1', 'tcp', 1], data: [7] }]) },
  { name: 'an element with a timeout in a set without the timeout flag', expect: 'EINVAL',
    build: () => tx().declareSet('ip', T, { ...SETS.ips, timeout: true }).addElements('ip', T, SETS.ips.name, [{ key: ['10.1.1.1'], timeoutSeconds: 5 }]) },
  { name: 'an interval overlapping one the set holds', expect: 'EEXIST', build: () => known().addElements('ip', T, SETS.nodeportIps.name, [{ key: ['192.168.0.128/25'] }]) },
  { name: 'an interval covering one the set holds', expect: 'EEXIST', build: () => known().addElements('ip', T, SETS.nodeportIps.name, [{ key: ['10.0.0.0/24'] }]) },
  { name: 'intervals next to held ones, and a held one again', expect: 'ok',
    build: () => known().addElements('ip', T, SETS.nodeportIps.name, [{ key: ['192.168.1.0/24'] }, { key: ['10.0.0.8/29'] }, { key: ['192.168.0.0/24'] }]) },
  { name: 'delete an interval, and its neighbour keeps its start', expect: 'ok',
    build: () => known().deleteElements('ip', T, SETS.nodeportIps.name, [{ key: ['192.168.0.0/24'] }]) },
  { name: 'delete an interval that is not held', expect: 'ENOENT', build: () => known().deleteElements('ip', T, SETS.nodeportIps.name, [{ key: ['192.168.0.0/24'] }]) },
  { name: 'a concatenated range again', expect: 'ok', build: () => known().addElements('ip', T, SETS.fw.name, [{ key: ['5.6.7.8', 'tcp', 443, '203.0.113.0/24'] }]) },
  { name: 'a concatenated range starting inside a held one', expect: 'EEXIST', build: () => known().addElements('ip', T, SETS.fw.name, [{ key: ['5.6.7.8', 'tcp', 443, '203.0.113.128/25'] }]) },
  { name: 'a concatenated range disjoint from the held ones', expect: 'ok', build: () => known().addElements('ip', T, SETS.fw.name, [{ key: ['5.6.7.8', 'tcp', 444, '203.0.113.0/24'] }]) },
  { name: 'good ops before a refused one: nothing is applied', expect: 'ENOENT',
    build: () => known().addChain('ip', T, { name: 'new-chain' }).addSet('ip', T, { name: 'new-set', key: ['ipv4_addr'] })
      .addElements('ip', T, SETS.ips.name, [{ key: ['10.9.9.9'] }]).flushSet('ip', T, SETS.ports.name).deleteChain('ip', T, 'nope') },
  { name: 'ops in a table deleted earlier in the batch', expect: 'ENOENT',
    build: () => tx().addTable('ip', 'gone').deleteTable('ip', 'gone').addChain('ip', 'gone', { name: 'x' }) },
  { name: 'a chain deleted and added again in one batch, then an element goes to it', expect: 'ok',
    build: () => known().addChain('ip', T, { name: 'fresh' }).deleteChain('ip', T, 'fresh').addChain('ip', T, { name: 'fresh' })
      .addElements('ip', T, SETS.serviceIps.name, [{ key: ['172.30.0.60', 'tcp', 80], verdict: goto('fresh') }]) },
  { name: 'delete a rule by its handle', expect: 'ok', build: async (s) => tx().deleteRule('ip', T, 'masquerading', await s.ruleHandle('masquerading', 1)) },
  { name: 'flush table: every rule goes; chains, sets and elements stay', expect: 'ok', build: () => tx().flushTable('ip', T) },
  { name: 'after the flush, chains only map elements go to are still in use', expect: 'EBUSY', build: () => tx().deleteChain('ip', T, 'fresh') },
  { name: 'flush the map, then its chains and the sets rules used go', expect: 'ok',
    build: () => tx().flushSet('ip', T, SETS.serviceIps.name).deleteChain('ip', T, 'fresh').deleteChain('ip', T, SVC)
      .deleteSet('ip', T, SETS.hairpin.name).deleteSet('ip', T, SETS.eps2.name) },
  { name: 'an existing table again', expect: 'ok', build: () => tx().addTable('ip', T) },
  { name: 'an existing chain again', expect: 'ok', build: () => tx().addChain('ip', T, { name: 'services' }) },
  { name: 'an existing base chain again, its policy unchanged', expect: 'ok', build: () => tx().addChain('ip', T, { name: 'filter-input', base: filterBase('input', -110, 'drop') }) },
  { name: 'an existing base chain again without a policy', expect: 'ok', build: () => tx().addChain('ip', T, { name: 'filter-input', base: filterBase('input', -110) }) },
  { name: 'an existing set again, the same', expect: 'ok', build: () => tx().addSet('ip', T, SETS.ports) },
  { name: 'flush an empty chain', expect: 'ok', build: () => tx().flushChain('ip', T, 'services') },
  { name: 'flush an empty set', expect: 'ok', build: () => tx().flushSet('ip', T, SETS.serviceIps.name) },
  { name: 'flush a table without rules', expect: 'ok', build: () => tx().flushTable('ip', T) },
  { name: 'delete a chain one of its own rules jumps to', expect: 'EBUSY',
    build: () => tx().addChain('ip', T, { name: 'loop' }).addRule('ip', T, 'loop', r().verdict({ kind: 'jump', chain: 'loop' }).build()).deleteChain('ip', T, 'loop') },
  { name: 'a plain lookup of a verdict map', expect: 'ok',
    build: () => tx().declareSet('ip', T, { ...SETS.serviceIps, map: undefined }).addRule('ip', T, 'services', r().lookup(['daddr', 'l4proto', 'dport'], SETS.serviceIps.name).verdict({ kind: 'accept' }).build()) },
  { name: 'delete a chain with its rules', expect: 'ok',
    build: () => tx().addRule('ip', T, EP1, r().verdict({ kind: 'accept' }).build()).deleteChain('ip', T, EP1) },
  { name: 'delete tables with everything in them', expect: 'ok', build: () => tx().deleteTable('ip6', T).deleteTable('ip', 'other') },
];
