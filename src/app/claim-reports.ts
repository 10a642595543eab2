// Says what the model's address ownership decided (core/address-ownership): a warning naming both
// Services and the key when a claim is refused, an info line when a refusal ends, a Warning event on
// the claimant, and the metrics. Each refusal is reported when it starts and when it ends, never per
// sync: the model reports it once, in the take that changed it.
import type { Log } from '../base/log';
import type { RefusedClaim } from '../core';
import { CLAIM_WORDS, claimKeyText, refusalMessage, serviceOfKey, type ServiceRef } from '../core/claim-text';
import type { ProxyMetrics } from '../metrics/proxy-metrics';

export interface ClaimReportDeps {
  log: Pick<Log, 'warn' | 'info'>;
  metrics: Pick<ProxyMetrics, 'addressClaimsRefusedTotal' | 'addressClaimsRefused'>;
  /** Records the Warning event on the claimant's Service (kube-events.ts recordClaimRefused). */
  onRefused?: (claimant: ServiceRef & { uid?: string }, message: string) => void;
}

function fields(c: RefusedClaim): Record<string, unknown> {
  const claimant = serviceOfKey(c.claimant);
  const owner = serviceOfKey(c.owner);
  return {
    kind: 'Service', namespace: claimant.namespace, name: claimant.name, portName: claimant.portName,
    claim: CLAIM_WORDS[c.claimantKind], key: claimKeyText(c),
    owner: `${owner.namespace}/${owner.name}`, ownerPortName: owner.portName, ownerClaim: CLAIM_WORDS[c.ownerKind], reason: c.reason,
  };
}

/** Reports one take's ownership changes; `current` is the number of refusals in force after it. */
export function reportClaims(d: ClaimReportDeps, changes: { refused: readonly RefusedClaim[]; ended: readonly RefusedClaim[] }, current: number): void {
  for (const c of changes.refused) {
    d.log.warn(fields(c), `Address claim refused: ${refusalMessage(c)}`);
    d.metrics.addressClaimsRefusedTotal.inc({ claim: c.claimantKind });
    const { namespace, name } = serviceOfKey(c.claimant);
    d.onRefused?.({ namespace, name, uid: c.claimantUid }, refusalMessage(c));
  }
  for (const c of changes.ended) d.log.info(fields(c), `Address claim no longer refused: ${claimKeyText(c)}`);
  d.metrics.addressClaimsRefused.set(current);
}
