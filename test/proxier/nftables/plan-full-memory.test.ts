// A full sync lets go of its compiled rules once they are in the transaction: the GC the app runs
// before the elements are copied (src/app/release-memory.ts) must be able to collect them. At 44k
// Services they are ~90 MiB; kept alive, they stayed on top of the element copy (docs/memory.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileService } from '../../../src/proxier/nftables/compile-service';
import { contextKey } from '../../../src/proxier/nftables/context';
import { planFullFamily, type CompiledService } from '../../../src/proxier/nftables/plan-full';
import { TxWriter } from '../../../src/proxier/nftables/tx-writer';
import { ctx, ep, selected, sp } from './fixtures';
import { gcFunction } from '../../helpers/gc';

const SERVICES = 40;

const six = (i: number) => sp(`svc${i}`, {
  key: `ns1/svc${i}:p80/TCP/IPv6`, family: 'IPv6', clusterIP: `fd00:30::1:${(i + 1).toString(16)}`, nodePort: 30000 + i, affinityTimeoutSeconds: 100,
});

test('planFullFamily: the compiled rules can be collected before the elements are copied', async () => {
  const gc = gcFunction();
  const c = ctx({}, 'ip6');
  let rules = 0;
  let lastServiceRules = 0;
  const collected: string[] = [];
  const registry = new FinalizationRegistry<string>((what) => collected.push(what));
  function* services(): Generator<CompiledService> {
    for (let i = 0; i < SERVICES; i++) {
      // IPv6 affinity gives a ServicePort chains of its own (affinity-chains.ts; any other is only elements).
      const s = six(i);
      const eps = selected([ep(`fd00:10::2:${(i + 1).toString(16)}`), ep(`fd00:10::3:${(i + 1).toString(16)}`)]);
      const obj = compileService(s, eps, c);
      lastServiceRules = 0;
      for (const chain of obj.chains) for (const r of chain.rules) { registry.register(r, s.key); rules++; lastServiceRules++; }
      yield { obj, source: { sp: s, eps } };
    }
  }
  let atCopy = -1;
  const w = new TxWriter();
  planFullFamily(w, {
    ctx: c, ctxKey: contextKey(c), services: services(), known: { chains: [], sets: new Map() }, recreateBaseChains: false,
    beforeElementsCopied: () => { gc(); atCopy = 0; },
  }, false);
  assert.equal(atCopy, 0, 'beforeElementsCopied ran');
  // Finalizers of what that GC collected run as tasks after it; nothing else collects before they do
  // (no GC is forced after planFullFamily returns), so what they report was collected at the copy.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(rules > SERVICES * 3, `compiled ${rules} rules`);
  // The last ServicePort compiled may still be referenced by the loop that claimed it.
  assert.ok(collected.length >= rules - lastServiceRules, `${collected.length} of ${rules} rules collected at the element copy`);
});

test('planFullFamily: a ServicePort\'s rules can be collected once the next ones are compiled, before the compile ends', async () => {
  const gc = gcFunction();
  const c = ctx({}, 'ip6');
  let written = 0;
  const collected: string[] = [];
  const registry = new FinalizationRegistry<string>((what) => collected.push(what));
  function* services(): Generator<CompiledService> {
    for (let i = 0; i < SERVICES; i++) {
      // Every ServicePort but the last two has been written by now: its Rule objects are garbage.
      if (i === SERVICES - 1) gc();
      const s = six(i);
      const eps = selected([ep(`fd00:10::2:${(i + 1).toString(16)}`), ep(`fd00:10::3:${(i + 1).toString(16)}`)]);
      const obj = compileService(s, eps, c);
      if (i < SERVICES - 2) for (const chain of obj.chains) for (const r of chain.rules) { registry.register(r, s.key); written++; }
      yield { obj, source: { sp: s, eps } };
    }
  }
  planFullFamily(new TxWriter(), {
    ctx: c, ctxKey: contextKey(c), services: services(), known: { chains: [], sets: new Map() }, recreateBaseChains: false,
  }, false);
  // As above: no GC is forced after the one in the compile, so what the finalizers report was collected there.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(written > SERVICES * 3, `compiled ${written} rules`);
  // The last ServicePort written may still be referenced by the writer's frames (as above); before
  // the rules were written as compiled, none was collectable until the whole family was compiled.
  const perService = written / (SERVICES - 2);
  assert.ok(collected.length >= written - 2 * perService, `${collected.length} of the ${written} rules of ServicePorts already written were collected in the compile`);
});
