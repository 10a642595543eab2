// The builder emits, expression for expression and register for register, what nft itself
// generates for the same rule text (compared with `nft --debug=netlink`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Rule, Transaction } from '../../src/native';
import { withNetns } from '../helpers/netns';
import { everyKind } from './fixtures';
import { parseNftDebug, renderExpr } from './nft-debug-render';

test('every rule of the fixture matches nft --debug=netlink', async () => {
  const built = new Map<string, string[][]>();
  const original = Transaction.prototype.addRule;
  Transaction.prototype.addRule = function (this: Transaction, family, table, chain, r: Rule) {
    const key = `${family} ${table} ${chain}`;
    built.set(key, [...(built.get(key) ?? []), r.exprs.map(renderExpr)]);
    return original.call(this, family, table, chain, r);
  };
  let tx: Transaction;
  try {
    tx = everyKind();
  } finally {
    Transaction.prototype.addRule = original;
  }
  await withNetns((ns) => {
    const debug = parseNftDebug(ns.exec('nft', ['--debug=netlink', '-f', '-'], tx.toNftScript()));
    assert.ok(built.size >= 15);
    assert.deepEqual([...debug.keys()].sort(), [...built.keys()].sort());
    for (const [chain, rules] of built) assert.deepEqual(debug.get(chain), rules, chain);
  });
});
