// Writes seeds/ipvs_ops/: op buffers made by the real serializer (run after `npm run build:ts`):
//   node native/fuzz/gen_ipvs_op_seeds.js
const { writeFileSync, mkdirSync } = require('node:fs');
const { join } = require('node:path');
const { serializeIpvsOps, serializeIpvsServiceKey } = require('../../dist/src/native/ipvs/ipvs-serialize');

const dir = join(__dirname, 'seeds', 'ipvs_ops');
mkdirSync(dir, { recursive: true });
const s4 = { family: 4, protocol: 'TCP', address: '10.96.0.10', port: 53, scheduler: 'rr', flags: 0, timeout: 0, prefixLength: 32 };
const s6 = { family: 6, protocol: 'SCTP', address: 'fd00::10', port: 9000, scheduler: 'wrr', flags: 1, timeout: 10800, prefixLength: 128 };
const su = { ...s4, protocol: 'UDP', prefixLength: 24, flags: 1, timeout: 60, scheduler: 'sh' };
const d4 = { family: 4, address: '10.1.0.5', port: 8053, weight: 1, forward: 'masq' };
const d6 = { family: 6, address: 'fd00:1::5', port: 9001, weight: 0, forward: 'route' };
const seeds = {
  'empty.bin': [],
  'add-service-v4.bin': [{ op: 'addService', service: s4 }],
  'add-service-v6.bin': [{ op: 'addService', service: s6 }],
  'every-op.bin': [
    { op: 'addService', service: s4 }, { op: 'addService', service: s6 }, { op: 'editService', service: su },
    { op: 'addDest', service: s4, dest: d4 }, { op: 'addDest', service: s6, dest: d6 },
    { op: 'editDest', service: s4, dest: { ...d4, weight: 2147483647, forward: 'tunnel' } },
    { op: 'deleteDest', service: s6, dest: d6 }, { op: 'deleteService', service: su },
  ],
  'dests.bin': Array.from({ length: 8 }, (_, i) => ({ op: 'addDest', service: s4, dest: { ...d4, port: 8000 + i, weight: i } })),
};
for (const [name, ops] of Object.entries(seeds)) writeFileSync(join(dir, name), serializeIpvsOps(ops));
writeFileSync(join(dir, 'service-key-v6.bin'), serializeIpvsServiceKey(s6));
