// explain's health-check node port facts: what it can check from the listing and the configuration
// (the proxy's own healthz and metrics ports, another Service given the same port, and which of them
// the running proxy serves), and that it says what it cannot check.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { healthCheckFacts } from '../../src/commands/explain-health-check';
import { servicePort } from '../helpers/service-fixtures';

const config = { healthzBindAddress: '0.0.0.0:10256', metricsBindAddress: '127.0.0.1:10249' };
const lb = (name: string, port: number, created?: number, uid?: string) =>
  servicePort(name, { externalPolicyLocal: true, healthCheckNodePort: port, ...(created !== undefined ? { created } : {}), ...(uid ? { uid } : {}) });

describe('explain: health-check node port facts', () => {
  it('none for a Service without a health-check node port', () => {
    assert.equal(healthCheckFacts('ns1/web', [servicePort('web')], config), undefined);
  });

  it('no conflict: says what it compared the port with, and what only the running proxy knows', () => {
    const f = healthCheckFacts('ns1/web', [lb('web', 32000), lb('other', 32001)], config)!;
    assert.equal(f.port, 32000);
    assert.deepEqual(f.conflicts, []);
    assert.deepEqual(f.checked, [
      "this proxy's healthz and metrics ports (healthzBindAddress 0.0.0.0:10256, metricsBindAddress 127.0.0.1:10249)",
      'the healthCheckNodePort of every other Service this proxy handles (1 with one)',
    ]);
    assert.match(f.notChecked.join('\n'), /whether the running proxy holds the port/);
  });

  it('the proxy\'s own healthz port (wildcard) and metrics port (one address)', () => {
    const [h] = healthCheckFacts('ns1/web', [lb('web', 10256)], config)!.conflicts;
    assert.deepEqual(h, { kind: 'healthz', with: '0.0.0.0:10256', owner: 'healthz server',
      note: "this proxy's healthz server (healthzBindAddress 0.0.0.0:10256) listens on port 10256 on every address: the health check cannot be bound" });
    const [m] = healthCheckFacts('ns1/web', [lb('web', 10249)], config)!.conflicts;
    assert.equal(m.kind, 'metrics');
    assert.match(m.note, /listens on port 10249 on 127\.0\.0\.1: the health check cannot be bound on that address, nor on every address/);
    assert.deepEqual(healthCheckFacts('ns1/web', [lb('web', 10256)], { ...config, healthzBindAddress: '' })!.conflicts, [], 'a disabled healthz server holds nothing');
  });

  it('a port shared with other Services: the older gets it, seen from each side', () => {
    const all = [lb('new', 32000, 200, 'u1'), lb('old', 32000, 100, 'u2'), lb('same-second', 32000, 200, 'u0')];
    const fromNew = healthCheckFacts('ns1/new', all, config)!.conflicts;
    assert.deepEqual(fromNew.map((c) => [c.kind, c.with, c.owner]), [['Service', 'ns1/old', 'ns1/old'], ['Service', 'ns1/same-second', 'ns1/old']]);
    assert.equal(fromNew[0].note, "Service ns1/old has the same healthCheckNodePort 32000: the proxy serves ns1/old's health check on it (the older Service gets it), not this Service's");
    const fromOld = healthCheckFacts('ns1/old', all, config)!.conflicts;
    assert.deepEqual(fromOld.map((c) => c.owner), ['ns1/old', 'ns1/old']);
    assert.equal(fromOld[0].note, "Service ns1/new has the same healthCheckNodePort 32000: the proxy serves this Service's health check on it (the older Service gets it), not ns1/new's");
  });

  it('a ServicePort per family or port counts the Service once', () => {
    const v6 = { ...lb('web', 32000), key: 'ns1/web:p80/TCP/IPv6', family: 'IPv6' as const };
    assert.deepEqual(healthCheckFacts('ns1/web', [lb('web', 32000), v6], config)!.conflicts, []);
  });
});
