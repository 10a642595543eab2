// `explain`'s Service-level facts about a health-check node port (externalTrafficPolicy Local
// LoadBalancers): what explain can see that would keep the running proxy from binding it. explain is
// a command of its own and cannot ask the running proxy whether it holds the port, so it says what it
// checked and what it could not; src/commands/explain-health-check.ts computes these facts.

/** What a Service's health-check node port collides with, as far as explain can see. */
export interface HealthCheckConflict {
  /** `healthz`, `metrics`: the proxy's own servers; `Service`: another Service given the same port. */
  kind: 'healthz' | 'metrics' | 'Service';
  /** The server's bind address (`host:port`), or the other Service's `namespace/name`. */
  with: string;
  /**
   * Who the running proxy gives the port to: a Service's `namespace/name` (this one, the other, or a
   * third sharing it too), or `healthz server` / `metrics server`.
   */
  owner: string;
  note: string;
}

export interface HealthCheckNodePortFacts {
  port: number;
  /** Empty: nothing explain checked stands in the way. */
  conflicts: HealthCheckConflict[];
  /** What explain compared the port with. */
  checked: string[];
  /** What only the running proxy knows. */
  notChecked: string[];
}

export function healthCheckLines(f: HealthCheckNodePortFacts): string[] {
  const head = `Health-check node port ${f.port}: ${f.conflicts.length === 0 ? 'no conflict found' : `${f.conflicts.length} CONFLICT${f.conflicts.length > 1 ? 'S' : ''}`}`;
  return [
    head,
    ...f.conflicts.map((c) => `  ${c.note}`),
    `  checked: ${f.checked.join('; ')}`,
    `  not checked: ${f.notChecked.join('; ')}`,
  ];
}
