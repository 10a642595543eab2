// The shipped alerting rules against the real promtool (Debian's `prometheus` package): they load,
// the PrometheusRule manifest holds the same rules, every alert fires on series that meet its
// condition and stays quiet on series that do not (promtool test rules, rule-scenarios.ts), the
// scenarios would notice a broken rule, and every alert tells the operator where to look.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as YAML from 'yaml';
import { PROMTOOL } from './prometheus-server';
import { SCENARIOS, type Scenario } from './rule-scenarios';
import { PROMETHEUS_RULE_FILE, REPO, RULES_FILE, shortenedRules } from './test-rules';

interface Rule { alert: string; expr: string; for?: string; labels: Record<string, string>; annotations: Record<string, string> }
const rulesDoc = () => YAML.parse(fs.readFileSync(RULES_FILE, 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> };
const alerts = (): Rule[] => rulesDoc().groups.flatMap((g) => g.rules);

function tmp(name: string, text: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-promtool-')), name);
  fs.writeFileSync(file, text);
  return file;
}

function promtool(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync(PROMTOOL, args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A `promtool test rules` file for `scenarios` against `rulesFile`. */
function unitTests(rulesFile: string, scenarios: Scenario[], rules: Rule[]): string {
  const byName = new Map(rules.map((r) => [r.alert, r]));
  return YAML.stringify({
    rule_files: [rulesFile],
    evaluation_interval: '15s',
    tests: scenarios.map((s) => ({
      name: s.alert,
      interval: s.interval,
      input_series: s.series,
      alert_rule_test: s.evals.map((e) => ({
        eval_time: e.at,
        alertname: s.alert,
        exp_alerts: e.firing.map((f) => ({
          exp_labels: f.labels,
          exp_annotations: { ...byName.get(s.alert)!.annotations, summary: f.summary },
        })),
      })),
    })),
  });
}

/** The rules file with one alert's rule changed by `change`. */
function withRule(alert: string, change: (r: Rule) => void): string {
  const doc = rulesDoc();
  const rule = doc.groups.flatMap((g) => g.rules).find((r) => r.alert === alert)!;
  change(rule);
  return tmp('rules.yaml', YAML.stringify(doc));
}

describe('alerting rules (deploy/monitoring) with promtool', () => {
  it('promtool check rules accepts the rules file, the PrometheusRule\'s rules and the live tests\' shortened rules', () => {
    for (const [what, file] of [
      ['rules file', RULES_FILE],
      ['PrometheusRule spec', tmp('spec.yaml', YAML.stringify(YAML.parse(fs.readFileSync(PROMETHEUS_RULE_FILE, 'utf8')).spec))],
      ['shortened rules', tmp('short.yaml', shortenedRules())],
    ]) {
      const r = promtool('check', 'rules', file);
      assert.equal(r.status, 0, `${what}: ${r.out}`);
      assert.match(r.out, new RegExp(`SUCCESS: ${alerts().length} rules found`), what);
    }
  });

  it('the PrometheusRule manifest holds exactly the rules file\'s groups', () => {
    const manifest = YAML.parse(fs.readFileSync(PROMETHEUS_RULE_FILE, 'utf8'));
    assert.equal(manifest.apiVersion, 'monitoring.coreos.com/v1');
    assert.equal(manifest.kind, 'PrometheusRule');
    assert.deepEqual(manifest.spec, rulesDoc());
  });

  it('every alert has a scenario that fires it and one that does not, and each scenario names a shipped alert', () => {
    const names = alerts().map((r) => r.alert);
    assert.ok(names.length >= 8, `${names.length} alerts`);
    assert.deepEqual(SCENARIOS.map((s) => s.alert).sort(), [...names].sort());
    for (const s of SCENARIOS) {
      assert.ok(s.evals.some((e) => e.firing.length > 0), `${s.alert}: an evaluation where it fires`);
      assert.ok(s.evals.some((e) => e.firing.length === 0), `${s.alert}: an evaluation where it does not`);
      const firingInstances = new Set(s.evals.flatMap((e) => e.firing.map((f) => f.labels.instance ?? f.labels.job)));
      const seriesInstances = new Set(s.series.map((x) => /instance="([^"]+)"/.exec(x.series)![1]));
      assert.ok(seriesInstances.size > firingInstances.size || s.alert === 'KubeProxyNativeNetworkProgrammingSlow',
        `${s.alert}: some node's series never fire it`);
    }
  });

  it('promtool test rules: each alert fires exactly for the series that meet its condition, after its for:', () => {
    const r = promtool('test', 'rules', tmp('tests.yaml', unitTests(RULES_FILE, SCENARIOS, alerts())));
    assert.equal(r.status, 0, r.out);
    assert.match(r.out, /SUCCESS/);
  });

  it('the scenarios catch a broken rule: one that never fires, and one that fires without waiting its for:', () => {
    for (const rule of alerts()) {
      const scenario = SCENARIOS.filter((s) => s.alert === rule.alert);
      const never = withRule(rule.alert, (r) => { r.expr = 'vector(1) > 2'; });
      const r1 = promtool('test', 'rules', tmp('tests.yaml', unitTests(never, scenario, alerts())));
      assert.notEqual(r1.status, 0, `${rule.alert} made never to fire: promtool test still passes`);
      const eager = withRule(rule.alert, (r) => { delete r.for; });
      const r2 = promtool('test', 'rules', tmp('tests.yaml', unitTests(eager, scenario, alerts())));
      assert.notEqual(r2.status, 0, `${rule.alert} without its for: promtool test still passes`);
    }
  });

  it('every alert says what to check: explain, docs/troubleshooting.md, docs/failure-modes.md, and its section of docs/monitoring.md', () => {
    const monitoring = fs.readFileSync(path.join(REPO, 'docs/monitoring.md'), 'utf8');
    for (const r of alerts()) {
      const text = `${r.annotations.summary}\n${r.annotations.description}`;
      assert.ok(r.annotations.summary && r.annotations.description, `${r.alert}: summary and description`);
      assert.match(text, /kube-proxy-native explain NS\/SERVICE/, `${r.alert}: explain`);
      for (const doc of text.match(/docs\/[\w-]+\.md/g) ?? []) assert.ok(fs.existsSync(path.join(REPO, doc)), `${r.alert} names ${doc}, which exists`);
      for (const doc of ['docs/troubleshooting.md', 'docs/failure-modes.md', 'docs/monitoring.md']) assert.ok(text.includes(doc), `${r.alert}: ${doc}`);
      assert.match(monitoring, new RegExp(`^### ${r.alert}$`, 'm'), `docs/monitoring.md has a section for ${r.alert}`);
      assert.match(r.labels.severity, /^(warning|critical)$/, `${r.alert}: severity`);
    }
  });
});
