// Which Service gets a healthCheckNodePort that two Services ask for. The API server allocates each
// one once, so two Services sharing one is broken state (a restore, a hand-edited object); one socket
// can serve only one of them, and without a rule the winner would be whichever the map lists first,
// so it could move between syncs and restarts. The rule is core/address-ownership's for addresses:
// the older Service (metadata.creationTimestamp), then the lower UID, then the name.

/** A Service's claim on a health-check node port: its port and, when known, its age. */
export interface HealthCheckClaim {
  port: number;
  /** metadata.creationTimestamp in seconds; absent counts as the newest. */
  created?: number;
  uid?: string;
}

/** A Service left without its port because an older one has it. */
export interface HealthCheckPortLoss {
  /** namespace/name of the Service that gets the port. */
  owner: string;
  /** The rule that decided, e.g. `the older Service gets it`. */
  rule: string;
  reason: string;
}

const NEWEST = Number.MAX_SAFE_INTEGER;

/** Negative when `a` (named `an`) gets a shared port before `b` (named `bn`). */
export function compareHealthCheckClaims(an: string, a: HealthCheckClaim, bn: string, b: HealthCheckClaim): number {
  return (a.created ?? NEWEST) - (b.created ?? NEWEST)
    || cmp(a.uid ?? '', b.uid ?? '')
    || cmp(an, bn);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Why `owner` beats `loser`, for people. */
function why(owner: HealthCheckClaim, loser: HealthCheckClaim): string {
  if ((owner.created ?? NEWEST) !== (loser.created ?? NEWEST)) return 'the older Service gets it';
  if ((owner.uid ?? '') !== (loser.uid ?? '')) return 'created in the same second: the lower UID gets it';
  return 'neither has a creation time or UID: the first name gets it';
}

/**
 * namespace/name -> what it lost, for every Service whose port another Service owns. Port 0 (the
 * kernel picks a free port: tests) is never shared.
 */
export function healthCheckPortLosses(claims: ReadonlyMap<string, HealthCheckClaim>): Map<string, HealthCheckPortLoss> {
  const owners = new Map<number, string>();
  for (const [name, c] of claims) {
    if (c.port === 0) continue;
    const owner = owners.get(c.port);
    if (owner === undefined || compareHealthCheckClaims(name, c, owner, claims.get(owner)!) < 0) owners.set(c.port, name);
  }
  const out = new Map<string, HealthCheckPortLoss>();
  for (const [name, c] of claims) {
    const owner = c.port === 0 ? name : owners.get(c.port)!;
    if (owner === name) continue;
    const rule = why(claims.get(owner)!, c);
    out.set(name, { owner, rule, reason: `healthCheckNodePort ${c.port} is also the healthCheckNodePort of Service ${owner}, and ${rule}` });
  }
  return out;
}
