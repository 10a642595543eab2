// IpvsProxier: keeps IPVS (virtual services and real servers) and kube-ipvs0's addresses equal to
// the model, from an in-memory mirror: the kernel is listed once at start-up (adoption), never on a
// sync, except the bounded reads graceful termination needs. A full sync diffs everything desired
// against the mirror; a partial one only the virtual services and addresses of the ServicePorts
// that changed (and what was refused last time). Then the mode's helper table gets the same sync.
import type { ChangeSet, Proxier, ProxySnapshot, ServicePort, SyncResult } from '../../core/types';
import { CallQueue } from '../../native/addon/call-queue';
import { DUMMY_LINK, type AddressOp, type LinkAddress } from '../../native/rtnl/rtnl-types';
import { CidrSet, destKey, vsKey } from './addr';
import { adopt } from './adopt';
import { desiredServicePort, type DesiredContext, type DesiredServicePort, type DesiredVS } from './desired';
import { GracefulRemovals, pollDraining } from './graceful';
import { Mirror } from './mirror';
import { nodeAddresses, type NodeAddresses } from './node-addresses';
import { checkOptions, DEFAULT_GRACEFUL_BOUND_MS, type IpvsProxierOptions } from './options';
import { planAddresses, planVS, type PlannedOp } from './plan';
import { Ownership } from './ownership';

/** Refusals logged one by one per sync; past these, one summary (a missing scheduler module refuses every add). */
const LOGGED_REFUSALS = 10;

/** A delete the kernel answers with "no such object": what it was to remove is not there. */
const alreadyGone = (op: string, code: string): boolean =>
  (op === 'deleteService' && code === 'ESRCH') || (op === 'deleteDest' && (code === 'ENOENT' || code === 'ESRCH'));

/** What one sync planned: the ServicePorts, virtual services and addresses it looked at. */
interface Scope {
  keys: Set<string>;
  vs: Set<string>;
  addrs: Set<string>;
}

/** Refusals of one sync, to retry on the next. */
interface Refused { vs: Set<string>; addrs: Set<string>; count: number }

export class IpvsProxier implements Proxier {
  private readonly opts: IpvsProxierOptions;
  private readonly excludeSet: CidrSet;
  private readonly scheduler: string;
  private mirror = new Mirror();
  private readonly draining = new GracefulRemovals();
  private readonly owned = new Ownership();
  private linkIndex = -1;
  private started = false;
  /** The address dump adoption read, used by the first full sync instead of a second one. */
  private startDump: LinkAddress[] | null = null;
  private node: NodeAddresses = { local: [], nodePortIPs: [] };
  private needFull = true;
  private retry: Refused = { vs: new Set(), addrs: new Set(), count: 0 };
  private readonly skippedLogged = new Map<string, string>();
  private readonly conflictsLogged = new Set<string>();
  private excludedNodeIPs = '';
  /** Start-up and syncs run one after another: each plans from the mirror the previous one left. */
  private readonly serial = new CallQueue('IpvsProxier');

  constructor(opts: IpvsProxierOptions) {
    checkOptions(opts);
    this.opts = { ...opts, families: [...opts.families] };
    this.excludeSet = new CidrSet(opts.excludeCIDRs);
    this.scheduler = opts.scheduler === '' ? 'rr' : opts.scheduler;
  }

  /** Real servers at weight 0 waiting for their connections to end. */
  get drainingCount(): number {
    return this.draining.size;
  }

  /**
   * Adoption (adopt.ts): kube-ipvs0 made sure of, IPVS and the addresses listed once. Called by the
   * first sync if not before; a failure leaves it to be tried again by the next sync.
   */
  start(): Promise<void> {
    return this.serial.run(() => this.startNow());
  }

  sync(snapshot: ProxySnapshot, changes: ChangeSet, full: boolean): Promise<SyncResult> {
    return this.serial.run(() => this.syncNow(snapshot, changes, full));
  }

  private readonly excluded = (ip: string): boolean => this.excludeSet.has(ip);

  private async startNow(): Promise<void> {
    if (this.started) return;
    const a = await adopt(this.opts.ipvs, this.opts.rtnl, this.opts.families, this.excluded, new Set(this.mirror.services.keys()));
    this.mirror = a.mirror;
    this.linkIndex = a.linkIndex;
    this.startDump = a.addressDump;
    this.started = true;
    this.needFull = true;
    this.opts.log.info({ link: DUMMY_LINK, created: a.createdLink, services: a.mirror.services.size, addresses: a.mirror.addresses.size },
      'IPVS state adopted at start-up');
  }

  private async syncNow(snapshot: ProxySnapshot, changes: ChangeSet, full: boolean): Promise<SyncResult> {
    let doFull = full || this.needFull;
    try {
      if (!this.started) { await this.startNow(); doFull = true; }
      if (doFull) await this.readNodeAddresses(snapshot);
      const scope = this.scope(snapshot, changes, doFull);
      // The helper table first: a new virtual service must never take connections before the marks
      // that masquerade them exist (and a removed one only loses rules that no longer serve anything).
      const helperOk = await this.syncHelperTable(snapshot, changes, scope, doFull);
      const refused = await this.program(scope);
      this.retry = refused;
      if (doFull && helperOk) this.needFull = false;
      if (refused.count === 0 && helperOk) return { full: doFull, ok: true };
      if (refused.count > LOGGED_REFUSALS) this.opts.log.warn({ refused: refused.count, logged: LOGGED_REFUSALS }, 'More IPVS and address operations were refused than logged');
      this.opts.metrics?.syncFailures?.inc();
      // Refusals of single operations leave the rest programmed, as the nftables mode's refused
      // ServicePorts do (and upstream's IPVS mode): the sync counts as done, so one bad object cannot
      // make the node unhealthy; they are planned again on the next sync. What needs the kernel
      // re-read (kube-ipvs0 gone) or the helper table rewritten fails the sync, so it runs again soon.
      if (helperOk && this.started) return { full: doFull, ok: true };
      return { full: doFull, ok: false, error: new Error(`IPVS sync: ${refused.count} operation(s) refused${helperOk ? '' : ', helper table sync failed'}`) };
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      // A batch that could not be sent: the mirror is as before it, and the next sync plans everything again.
      this.needFull = true;
      this.opts.metrics?.syncFailures?.inc();
      this.opts.log.error({ err: error, full: doFull }, 'IPVS sync failed; the next sync is a full one');
      return { full: doFull, ok: false, error };
    }
  }

  /** The node's addresses, for NodePorts and for which external IPs are bound: read on full syncs only. */
  private async readNodeAddresses(snapshot: ProxySnapshot): Promise<void> {
    const dump = this.startDump ?? await this.opts.rtnl.addresses();
    this.startDump = null;
    const primary = this.opts.nodeIPs?.length ? this.opts.nodeIPs : snapshot.node.ips;
    const node = nodeAddresses(dump, this.linkIndex, this.opts.nodePortAddresses, primary, this.opts.families);
    // A node IP in excludeCIDRs serves no NodePort: said once here, not once per ServicePort.
    const excluded = node.nodePortIPs.filter(this.excluded);
    if (excluded.join() !== this.excludedNodeIPs) {
      this.excludedNodeIPs = excluded.join();
      if (excluded.length > 0) this.opts.log.warn({ addresses: excluded }, 'Node IPs in excludeCIDRs serve no NodePort');
    }
    this.node = { local: node.local, nodePortIPs: node.nodePortIPs.filter((ip) => !this.excluded(ip)) };
  }

  private context(): DesiredContext {
    return { scheduler: this.scheduler, nodePortIPs: this.node.nodePortIPs, localAddresses: new Set(this.node.local), excluded: this.excluded };
  }

  /** Recomputes the desired state of the ServicePorts this sync covers, and what that touches. */
  private scope(snapshot: ProxySnapshot, changes: ChangeSet, full: boolean): Scope {
    const keys = new Set<string>(full ? [...snapshot.services.keys(), ...this.owned.keys()]
      : [...changes.services, ...(changes.removedServices?.keys() ?? [])]);
    const scope: Scope = { keys, vs: new Set(this.retry.vs), addrs: new Set(this.retry.addrs) };
    const ctx = this.context();
    for (const key of keys) {
      const sp = snapshot.services.get(key);
      const next = sp && this.opts.families.includes(sp.family) ? desiredServicePort(sp, snapshot.endpoints.get(key), ctx) : undefined;
      if (next) this.logSkipped(next);
      else this.skippedLogged.delete(key);
      this.owned.replace(key, next, scope.vs, scope.addrs);
    }
    if (full) {
      for (const vs of this.mirror.services.keys()) scope.vs.add(vs);
      for (const a of this.mirror.addresses) scope.addrs.add(a);
    }
    return scope;
  }

  private logSkipped(d: DesiredServicePort): void {
    const text = d.skipped.join(',');
    if ((this.skippedLogged.get(d.key) ?? '') === text) return;
    if (text) this.opts.log.warn({ servicePort: d.key, addresses: d.skipped }, 'Addresses in excludeCIDRs (or not IPs of the ServicePort\'s family) are not programmed');
    if (text) this.skippedLogged.set(d.key, text);
    else this.skippedLogged.delete(d.key);
  }

  private desiredVS(vs: string): DesiredVS | undefined {
    const { owner, ownerKey, contenders } = this.owned.ownerOf(vs);
    if (contenders > 1 && !this.conflictsLogged.has(vs)) {
      this.conflictsLogged.add(vs);
      this.opts.log.warn({ virtualService: vs, servicePort: ownerKey, contenders }, 'Several ServicePorts want the same virtual service (an external IP that is a node address, on another Service\'s NodePort); the external IP\'s Service gets it, then the first by key');
    } else if (contenders <= 1) this.conflictsLogged.delete(vs);
    return owner;
  }

  /** Plans and applies: phase 1, then addresses (bind and unbind), then phase 2. */
  private async program(scope: Scope): Promise<Refused> {
    const refused: Refused = { vs: new Set(), addrs: new Set(), count: 0 };
    await this.refreshStale(scope.vs);
    const phase1: PlannedOp[] = [];
    const phase2: PlannedOp[] = [];
    const skip = new Set<string>();
    const now = this.opts.clock.now();
    for (const vs of scope.vs) {
      const p = planVS(vs, this.desiredVS(vs), this.mirror.services.get(vs), this.draining);
      phase1.push(...p.phase1);
      phase2.push(...p.phase2);
      for (const d of p.drainNow) this.draining.add(vs, d, now);
      for (const o of p.phase1) if (o.effect === 'revive' && 'dest' in o.op) skip.add(`${vs} ${destKey(o.op.dest)}`);
      if (p.phase2.length > 0) skip.add(vs);
    }
    for (const op of await this.pollDraining(skip, now)) phase1.push(op);
    await this.applyIpvs(phase1, refused, now);
    const addrs = planAddresses(scope.addrs, (a) => this.owned.wantsAddress(a), this.mirror.addresses, this.excluded, this.linkIndex);
    await this.applyAddresses([...addrs.bind, ...addrs.unbind], refused);
    await this.applyIpvs(phase2, refused, now);
    return refused;
  }

  private async pollDraining(skip: ReadonlySet<string>, now: number): Promise<PlannedOp[]> {
    if (this.draining.size === 0) return [];
    const ops = await pollDraining({
      ipvs: this.opts.ipvs, mirror: this.mirror, draining: this.draining, now, skip,
      boundMs: this.opts.gracefulBoundMs ?? DEFAULT_GRACEFUL_BOUND_MS,
      onError: (vs, err) => this.opts.log.warn({ virtualService: vs, err: (err as Error).message }, 'Reading a draining virtual service failed; trying again on the next sync'),
    });
    return ops.map((op) => ({ op, vs: vsKey(op.service) }));
  }

  /** Virtual services an earlier refusal left unknown: their real servers are read before planning. */
  private async refreshStale(vss: ReadonlySet<string>): Promise<void> {
    for (const vs of vss) {
      const m = this.mirror.services.get(vs);
      if (!m?.staleDests) continue;
      try {
        const found = await this.opts.ipvs.dumpDestinations(m.service);
        m.dests = new Map(found.map((d) => [destKey(d), { address: d.address, port: d.port, family: d.family, weight: d.weight, forward: d.forward }]));
        m.staleDests = false;
      } catch (e) {
        if ((e as { code?: string }).code !== 'ENOENT') throw e;
        this.mirror.services.delete(vs);
      }
    }
  }

  private async applyIpvs(planned: readonly PlannedOp[], refused: Refused, now: number): Promise<void> {
    if (planned.length === 0) return;
    const result = await this.opts.ipvs.apply(planned.map((p) => p.op));
    const errors = new Map(result.errors.map((e) => [e.index, e]));
    planned.forEach((p, i) => {
      const err = errors.get(i);
      if (err && alreadyGone(p.op.op, err.code)) {
        // Someone removed it first: the kernel is as desired.
        this.opts.log.info({ virtualService: p.vs, code: err.code }, `IPVS: ${err.message} (already gone)`);
        this.mirror.refused(p.op, err.code);
        if (err.code === 'ESRCH') this.draining.deleteService(p.vs);
        else this.recordDraining(p, now);
        return;
      }
      if (err) {
        this.mirror.refused(p.op, err.code);
        refused.vs.add(p.vs);
        if (++refused.count <= LOGGED_REFUSALS) this.opts.log.warn({ virtualService: p.vs, errno: err.errno, code: err.code }, `IPVS refused ${err.message}; retrying on the next sync`);
        return;
      }
      this.mirror.accepted(p.op);
      this.recordDraining(p, now);
    });
  }

  private recordDraining(p: PlannedOp, now: number): void {
    const op = p.op;
    if (op.op === 'deleteService') this.draining.deleteService(p.vs);
    else if (op.op === 'deleteDest') this.draining.delete(p.vs, destKey(op.dest));
    else if (p.effect === 'drain' && op.op === 'editDest') this.draining.add(p.vs, op.dest, now);
    else if (p.effect === 'revive' && op.op === 'editDest') this.draining.delete(p.vs, destKey(op.dest));
  }

  private async applyAddresses(ops: readonly AddressOp[], refused: Refused): Promise<void> {
    if (ops.length === 0) return;
    const result = await this.opts.rtnl.applyAddresses(ops);
    const errors = new Map(result.errors.map((e) => [e.index, e]));
    ops.forEach((op, i) => {
      const err = errors.get(i);
      if (!err || (op.op === 'delete' && err.code === 'EADDRNOTAVAIL')) { this.mirror.addressAccepted(op); return; }
      this.mirror.addressRefused(op, err.code);
      // kube-ipvs0 is gone (deleted under us): the next sync makes it again and re-reads what is there.
      if (err.code === 'ENODEV') this.started = false;
      refused.addrs.add(op.address.address);
      if (++refused.count <= LOGGED_REFUSALS) this.opts.log.warn({ link: DUMMY_LINK, errno: err.errno, code: err.code }, `Address change refused: ${err.message}; retrying on the next sync`);
    });
  }

  private async syncHelperTable(snapshot: ProxySnapshot, changes: ChangeSet, scope: Scope, full: boolean): Promise<boolean> {
    const removed: ReadonlyMap<string, ServicePort> = changes.removedServices ?? new Map();
    try {
      await this.opts.helperTable.sync({ snapshot, changed: scope.keys, removed, full, nodePortIPs: this.node.nodePortIPs });
      return true;
    } catch (e) {
      this.needFull = true;
      this.opts.log.error({ err: e instanceof Error ? e : new Error(String(e)) }, 'IPVS helper table sync failed; the next sync is a full one');
      return false;
    }
  }
}
