// The typed face of the native addon: everything else in src/ talks to the kernel through this.
export type { ChainType, Family, Hook, NftType, Verdict, CtState, L4Proto } from './nft-types';
export type { SetSpec } from './set-spec';
export type { Element, KeyPart } from './elements';
export { Transaction } from './transaction';
export { ElementBatch } from './element-batch';
export type { ChainSpec } from './transaction';
export { Rule, RuleBuilder, rule } from './rule-builder';
export { cidrFamily, detectorKey, localMatch, resolveDetector } from './local-detector';
export type { LocalDetectorOptions, Match, ResolvedDetector } from './local-detector';
export type { KeyExpr, RuleFamily, SetRef } from './rule-builder';
export { NetlinkError } from './netlink-error';
export { Nft } from './nft';
export type { CommitStats, DumpedElement, TableDump } from './nft';
export { NftMonitor, isOwnReport } from './nft-monitor';
export type { MonitorChange, MonitorEvent, MonitorOptions, CommitReport, MonitorOverflow, MonitorError } from './nft-monitor';
export type { MonitorStats } from './addon-types';
export { loadAddon, addonPath } from './addon-loader';
export { memoryPressureGc, releaseFreeMemory } from './release-memory';
export { FakeKernel } from './fake-kernel';
export { FakeNft } from './fake-nft';
export type { FakeCommit, FakeFault, NftApi } from './fake-nft';
export { ConntrackClient } from './conntrack-client';
export type { ConntrackAddon, ConntrackClientOptions } from './conntrack-client';
export type {
  ConntrackDeleteOptions, ConntrackDeleteResult, ConntrackFilter, ConntrackListQuery, ConntrackProtocol, DnatFlow, DnatFlowList,
} from './conntrack-types';
export { RtnlSocket } from './rtnl';
export type { RtnlSocketOptions } from './rtnl';
export type { AddressOp, AddressOpError, LinkAddress, LinkInfo, RtnlHandle } from './rtnl-types';
export { IpvsSocket } from './ipvs';
export { describeIpvsOp } from './ipvs-describe';
export { serializeIpvsOps, serializeIpvsServiceKey } from './ipvs-serialize';
export type { IpvsSocketHandle, RawIpvsApplyResult, RawIpvsDest, RawIpvsService } from './addon-types';
export { FakeIpvs, FAKE_IPVS_SCHEDULERS } from './fake-ipvs';
export type { FakeIpvsFault, FakeIpvsCalls } from './fake-ipvs';
export { FakeRtnl, describeAddressOp } from './fake-rtnl';
export type { FakeRtnlFault, FakeRtnlCalls } from './fake-rtnl';
