// The builder emits, expression for expression and register for register, what nft itself
// generates for the same rule text (compared with `nft --debug=netlink`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rule, SetSpec, Transaction } from '../../src/native';
import { Expr } from '../../src/native/expressions';
import { natForMapData } from '../../src/native/rule-builder';
import { mapData } from '../../src/native/set-spec';
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
