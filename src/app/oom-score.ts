// linux.oomScoreAdj (default -999): keep the kernel's OOM killer away from the node's proxy, as
// upstream does. Failing to set it (an unprivileged container) is logged, not fatal.
import type { Log } from '../base/log';
import { writeFileSync } from 'node:fs';

export function applyOomScoreAdj(value: number, log: Pick<Log, 'info' | 'warn'>, file = '/proc/self/oom_score_adj'): boolean {
  try {
    writeFileSync(file, String(value));
    log.info({ oomScoreAdj: value }, 'Set OOM score adjustment');
    return true;
  } catch (e) {
    log.warn({ oomScoreAdj: value, error: (e as Error).message }, 'Could not set OOM score adjustment');
    return false;
  }
}
