// Where our objects live: one table, `kube-proxy`, per family. Earlier versions spread per-Service
// chains over shard tables `kube-proxy-svc-NN`; start-up adoption and --cleanup still recognise
// them so that an upgrade removes them.
import { TABLE } from './names';

const SHARD_RE = /^kube-proxy-svc-\d{2,3}$/;

/** Tables any version of ours may have created (start-up adoption, --cleanup). */
export function isOurTable(name: string): boolean {
  return name === TABLE || SHARD_RE.test(name);
}

/** Qualified object name, unique across the tables of one family. */
export function qual(table: string, name: string): string {
  return `${table}\u0000${name}`;
}

export function unqual(q: string): { table: string; name: string } {
  const i = q.indexOf('\u0000');
  return { table: q.slice(0, i), name: q.slice(i + 1) };
}
