// Holds a request executing in a user's APF priority level: an Event POST (granted by deploy/'s rules)
// whose chunked body never comes, so kube-apiserver's handler waits reading it, inside the level's
// seat. A priority level with no seats still dispatches a request when none of its own is executing
// (kube-apiserver v1.37.2); with this one executing, every other request of the level is rejected.
// curl runs in the control plane's namespace (not the node's, whose connections a test may cut).
import { spawn, spawnSync } from 'node:child_process';
import { controlPlane } from './control-plane';
import { kubectl } from './kubectl';

export interface SeatHolder { stop(): Promise<void> }

export function holdSeat(token: string, namespace: string): SeatHolder {
  const cp = controlPlane();
  const child = spawn('ip', ['netns', 'exec', cp.netns, 'curl', '-s', '-o', '/dev/null', '--cacert', cp.caFile,
    '-H', `Authorization: Bearer ${token}`, '-H', 'Content-Type: application/json', '-X', 'POST', '-T', '-',
    `${cp.server}/apis/events.k8s.io/v1/namespaces/${namespace}/events`], { stdio: ['pipe', 'ignore', 'ignore'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL'); // ip netns exec execs curl: this pid is curl's
      await exited;
    },
  };
}

/** One GET of `urlPath` as `token`, no retries (kubectl retries a 429 ten times, 1 s apart): the HTTP code. */
export function probe(token: string, urlPath: string): number {
  const cp = controlPlane();
  const r = spawnSync('ip', ['netns', 'exec', cp.netns, 'curl', '-s', '-o', '/dev/null', '-m', '5', '-w', '%{http_code}', '--cacert', cp.caFile,
    '-H', `Authorization: Bearer ${token}`, `${cp.server}${urlPath}`], { encoding: 'utf8' });
  return Number(r.stdout);
}

/** A request APF holds in a priority level: waiting in a queue, or executing. */
export interface LevelRequest {
  /** Its place in its queue (0 = next); -1 when executing. */
  index: number;
  user: string;
  verb: string;
  resource: string;
}

/**
 * The requests of priority level `level` now, from kube-apiserver's APF debug dump
 * (/debug/api_priority_and_fairness/dump_requests: one row per request, waiting or executing).
 */
export function levelRequests(level: string): LevelRequest[] {
  const text = kubectl(['get', '--raw', '/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1']);
  // PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue, FlowDistingsher, ArriveTime, InitialSeats,
  // FinalSeats, AdditionalLatency, StartTime, UserName, Verb, APIPath, Namespace, Name, APIVersion, Resource, SubResource
  return text.split('\n').slice(1).map((l) => l.split(',').map((c) => c.trim())).filter((c) => c[0] === level)
    .map((c) => ({ index: Number(c[3]), user: c[10], verb: c[11], resource: c[16] }));
}

/** The seats APF gives priority level `level` (apiserver_flowcontrol_nominal_limit_seats). */
export function levelSeats(level: string): number {
  const m = new RegExp(`^apiserver_flowcontrol_nominal_limit_seats\\{priority_level="${level}"\\} (\\d+)$`, 'm').exec(kubectl(['get', '--raw', '/metrics']));
  if (!m) throw new Error(`no apiserver_flowcontrol_nominal_limit_seats for ${level}`);
  return Number(m[1]);
}
