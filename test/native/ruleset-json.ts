// `nft -j list ruleset` normalised for comparison: handles and the metainfo header removed, and
// the things nft numbers by creation order (handles) or by time (expires) dropped.

export type NftJson = Array<Record<string, any>>;

function strip(v: any): any {
  if (Array.isArray(v)) return v.map(strip);
  if (v && typeof v === 'object') {
    const out: Record<string, any> = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'handle' || k === 'expires') continue;
      out[k] = strip(x);
    }
    return out;
  }
  return v;
}

export function normalizeRuleset(json: NftJson): NftJson {
  return strip(json.filter((o) => !('metainfo' in o)));
}

export function objectsOf(json: NftJson, kind: string): any[] {
  return json.filter((o) => kind in o).map((o) => o[kind]);
}
