// The shipped rules (deploy/monitoring/kube-proxy-native.rules.yaml), shortened for live tests: the
// same expressions, with durations a test can wait for. Every change is listed here and must apply
// (a replacement that no longer matches the shipped file fails the test that asked for it), so a
// live test always exercises the shipped rules, only faster:
// - every `for:` becomes FOR (the alert fires after that much of its condition, not minutes);
// - every range selector ([2m], [5m], [10m]) becomes RANGE (counters' increases are judged over the
//   last RANGE; with a 1 s scrape interval that is still many samples);
// - "4 * 30" (four sync periods of the default 30 s) becomes "4 * SYNC_PERIOD_S", the test proxy's
//   syncPeriod.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO = path.resolve(__dirname, '../../..');
export const RULES_FILE = path.join(REPO, 'deploy/monitoring/kube-proxy-native.rules.yaml');
export const PROMETHEUS_RULE_FILE = path.join(REPO, 'deploy/monitoring/prometheusrule.yaml');
export const DASHBOARD_FILE = path.join(REPO, 'deploy/monitoring/dashboard.json');

export const FOR = '5s';
export const RANGE = '20s';
/** The syncPeriod of the proxies the live tests start (liveConfig in live-cluster.ts). */
export const SYNC_PERIOD_S = 5;

function replaceAll(text: string, re: RegExp, to: string, what: string): string {
  if (!re.test(text)) throw new Error(`test-rules: ${what} (${re}) no longer appears in ${RULES_FILE}`);
  return text.replace(new RegExp(re.source, 'g'), to);
}

/** The shortened rules' text. */
export function shortenedRules(): string {
  let t = fs.readFileSync(RULES_FILE, 'utf8');
  t = replaceAll(t, /\bfor: \d+[smh]\b/, `for: ${FOR}`, 'for: durations');
  t = replaceAll(t, /\[\d+[smh]\]/, `[${RANGE}]`, 'range selectors');
  t = replaceAll(t, /> 4 \* 30\b/, `> 4 * ${SYNC_PERIOD_S}`, 'four default sync periods');
  return t;
}

/** Writes the shortened rules to a temporary file; returns its path. */
export function writeShortenedRules(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-rules-')), 'rules.yaml');
  fs.writeFileSync(file, shortenedRules());
  return file;
}
