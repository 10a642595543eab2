// One family's part of a sync's change set: upstream runs a proxier (and its conntrack reconciler)
// per family, so per-family figures come from per-family work. ServicePort keys name their family.
import { familyOfKey } from './keys';
import type { ChangeSet, IPFamily } from './types';

export function changesOfFamily(changes: ChangeSet, family: IPFamily): ChangeSet {
  const mine = (key: string): boolean => familyOfKey(key) === family;
  return {
    services: new Set([...changes.services].filter(mine)),
    removedEndpoints: new Map([...changes.removedEndpoints].filter(([k]) => mine(k))),
    newlyActive: new Set([...(changes.newlyActive ?? [])].filter(mine)),
    removedServices: new Map([...(changes.removedServices ?? [])].filter(([k]) => mine(k))),
    changedFrontends: new Map([...(changes.changedFrontends ?? [])].filter(([k]) => mine(k))),
  };
}
