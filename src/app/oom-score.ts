// linux.oomScoreAdj (default -999): keep the kernel's OOM killer away from the node's proxy, as
// upstream does. Failing to set it (an unprivileged container) is logged, not fatal.
import { writeFileSync } from 'node:fs';

export function applyOomScoreAdj(value: number, log: { info(o: object, m: string): void; warn(o: object, m: string): void }, file = '/proc/self/oom_score_adj'): boolean {
  try {
    writeFileSync(file, String(value));
    log.info({ oomScoreAdj: value }, 'Set OOM score adjustment');
    return true;
  } catch (e) {
    log.warn({ oomScoreAdj: value, error: (e as Error).message }, 'Could not set OOM score adjustment');
    return false;
  }
}
