// The builder emits, expression for expression and register for register, what nft itself
// generates for the same rule text (compared with `nft --debug=netlink`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rule, rule, SetSpec, Transaction } from '../../src/native';
import { Expr } from '../../src/native/txn/expressions';
import { natForMapData } from '../../src/native/txn/rule-builder';
import { mapData } from '../../src/native/txn/set-spec';
import { withNetns } from '../helpers/netns';
import { dataMapKinds, everyKind } from './fixtures';
import { parseNftDebug, renderExpr } from './nft-debug-render';

/** Builds a fixture and records each rule's expressions as the Transaction sends them. */
function capture(fixture: () => Transaction): { tx: Transaction; built: Map<string, string[][]> } {
  const built = new Map<string, string[][]>();
  const sets = new Map<string, SetSpec>();
  const { addRule, addSet } = Transaction.prototype;
  Transaction.prototype.addSet = function (this: Transaction, family, table, set, opts) {
    sets.set(`${family} ${table} ${set.name}`, set);
    return addSet.call(this, family, table, set, opts);
  };
  Transaction.prototype.addRule = function (this: Transaction, family, table, chain, r: Rule) {
    // A dnatMap's proto registers depend on the map's data (resolved by the Transaction the same way).
    const sent = (e: Expr) => (e.type === 'nat' && e.map ? natForMapData(e, mapData(sets.get(`${family} ${table} ${e.map}`)!)!) : e);
    const key = `${family} ${table} ${chain}`;
    built.set(key, [...(built.get(key) ?? []), r.exprs.map((e) => renderExpr(sent(e)))]);
    return addRule.call(this, family, table, chain, r);
  };
  try {
    return { tx: fixture(), built };
  } finally {
    Object.assign(Transaction.prototype, { addRule, addSet });
  }
}

for (const [name, fixture, minChains] of [['every kind', everyKind, 15], ['data maps', dataMapKinds, 4]] as const) {
  test(`every rule of the ${name} fixture matches nft --debug=netlink`, async () => {
    const { tx, built } = capture(fixture);
    await withNetns((ns) => {
      const debug = parseNftDebug(ns.exec('nft', ['--debug=netlink', '-f', '-'], tx.toNftScript()));
      assert.ok(built.size >= minChains);
      assert.deepEqual([...debug.keys()].sort(), [...built.keys()].sort());
      for (const [chain, rules] of built) assert.deepEqual(debug.get(chain), rules, chain);
    });
  });
}

// A lookup with constant key parts: nft reads the builder's text and emits the same expressions,
// and the key's registers hold what a dynset update of the same key (immediates) writes there, so
// the two rules meet on the same set elements.
// IPv4 addresses are carried by `ip daddr`, IPv6 ones by `ct original ip6 daddr` (rule-key.ts).
for (const [family, client, vip, ep, carrier, listedVip] of [
  ['ip', 'ip saddr', '172.30.0.41', '10.180.0.1', 'ip daddr', '172.30.0.41 \\| 0xac1e0029'],
  ['ip6', 'ip6 saddr', 'fd00::41', 'fd00:10::1', 'ct original ip6 daddr', 'fd00::41 \\| fd00::41'],
] as const) {
  test(`a lookup with constant key parts (${family}) is what nft emits for its text, and loads the key a dynset update writes`, async () => {
    const addr = family === 'ip' ? 'ipv4_addr' : 'ipv6_addr';
    const set: SetSpec = { name: 'aff', key: [addr, addr, 'inet_service', addr, 'inet_service'], timeout: true, dynamic: true };
    const key = ['saddr', { ip: vip }, { port: 80 }, { ip: ep }, { port: 8080 }] as const;
    const built = rule(family).lookup([...key], 'aff').goto('e').build();
    const updated = rule(family).dynsetUpdate([...key], 'aff', 60).build();
    assert.equal(built.text, `${client} . ${carrier} & ${vip} | ${vip} . th dport & 80 | 80 . ${carrier} & ${ep} | ${ep} . th dport & 8080 | 8080 @aff goto e`);
    const script = [`add table ${family} t`, `add set ${family} t aff { type ${set.key.join(' . ')}; flags timeout,dynamic; }`,
      `add chain ${family} t e`, `add chain ${family} t writes`, `add chain ${family} t reads`,
      `add rule ${family} t writes ${updated.text}`, `add rule ${family} t reads ${built.text}`].join('\n') + '\n';
    await withNetns((ns) => {
      const debug = parseNftDebug(ns.exec('nft', ['--debug=netlink', '-f', '-'], script));
      assert.deepEqual(debug.get(`${family} t reads`), [built.exprs.map(renderExpr)]);
      assert.deepEqual(debug.get(`${family} t writes`), [updated.exprs.map(renderExpr)]);
      // Each key part in the same register, with the same bytes: the update's immediate, the lookup's xor.
      const parts = (exprs: typeof built.exprs) => {
        const out = new Map<number, string>();
        for (const e of exprs) {
          if (e.type === 'immediate') out.set(e.dreg, Buffer.from(e.data).toString('hex'));
          if (e.type === 'bitwise') out.set(e.dreg, Buffer.from(e.xor).toString('hex'));
        }
        return out;
      };
      assert.deepEqual(parts(built.exprs), parts(updated.exprs));
      assert.equal(parts(built.exprs).size, 4);
      // And nft lists the lookup legibly (nft 1.0.6 once listed `0x... [invalid type]` there); an
      // IPv4 address's or'ed value in hex, which nft reads back (kernel-roundtrip.test.ts).
      const listed = ns.nft('list', 'chain', family, 't', 'reads');
      assert.doesNotMatch(listed, /invalid type/);
      assert.match(listed, new RegExp(`${carrier} & ${listedVip} \\. th dport & 80 \\| 80`));
    });
  });
}
