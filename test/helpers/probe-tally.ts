// How many probes each pod answered (an error counted by its line), for a failure's diff: the whole
// picture, not the first wrong answer.
export function tally(lines: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) {
    const who = l.startsWith('ERR') ? l : l.split(' ')[0];
    out[who] = (out[who] ?? 0) + 1;
  }
  return out;
}
