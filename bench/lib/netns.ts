// Bench namespaces: the test helper's, plus a teardown that frees the ruleset synchronously, so the
// kernel's clean-up of one run does not run in a kworker during the next measurement.
import { createNetns, TestNetns } from '../../test/helpers/netns';

export { TestNetns };

export function benchNetns(): TestNetns {
  return createNetns('kpnbench');
}

export function teardown(ns: TestNetns | undefined): void {
  if (!ns) return;
  try { ns.nft('flush', 'ruleset'); } catch { /* the namespace may already be empty */ }
  ns.destroy();
}
