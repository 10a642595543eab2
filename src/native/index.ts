// The typed face of the native addon: everything else in src/ talks to the kernel through this.
// The fakes are not here: tests import them from ./testing, which is not shipped.
export type { ChainType, Family, Hook, NftType, Verdict, CtState, L4Proto } from './txn/nft-types';
export type { SetSpec } from './txn/set-spec';
export type { Element, KeyPart } from './txn/elements';
export { Transaction } from './txn/transaction';
export { ElementBatch } from './txn/element-batch';
export type { ChainSpec } from './txn/transaction';
export { Rule, RuleBuilder, rule } from './txn/rule-builder';
export type { KeyExpr, RuleFamily, SetRef } from './txn/rule-builder';
export { NetlinkError } from './addon/netlink-error';
export { Nft } from './nft/nft';
export type { CommitStats, DumpedElement, NftApi, TableDump } from './nft/nft';
export type { ChainRule, ElementLookup, ExpectedChain } from './nft/lookups';
export { NftMonitor, isOwnReport } from './nft/nft-monitor';
export type { MonitorChange, MonitorEvent, MonitorOptions, CommitReport, MonitorOverflow, MonitorError } from './nft/nft-monitor';
export type { MonitorStats } from './addon/addon-types';
export { loadAddon, addonPath } from './addon/addon-loader';
export { memoryPressureGc, releaseFreeMemory } from './addon/release-memory';
export { ConntrackClient } from './conntrack/conntrack-client';
export type { ConntrackAddon, ConntrackClientOptions } from './conntrack/conntrack-client';
export type {
  ConntrackCounterName, ConntrackDeleteOptions, ConntrackDeleteResult, ConntrackFilter, ConntrackListQuery, ConntrackProtocol, ConntrackStats, DnatFlow, DnatFlowList,
} from './conntrack/conntrack-types';
export { RtnlSocket } from './rtnl/rtnl';
export type { RtnlSocketOptions } from './rtnl/rtnl';
export { describeAddressOp } from './rtnl/rtnl-encode';
export type { AddressOp, AddressOpError, LinkAddress, LinkInfo, RtnlHandle } from './rtnl/rtnl-types';
export { IpvsSocket } from './ipvs/ipvs';
export { describeIpvsOp } from './ipvs/ipvs-describe';
export { serializeIpvsOps, serializeIpvsServiceKey } from './ipvs/ipvs-serialize';
export type { IpvsSocketHandle, RawIpvsApplyResult, RawIpvsDest, RawIpvsService } from './addon/addon-types';
export { destroyIpsets, IPSET_ERR_BUSY } from './ipset/ipset';
export type { IpsetDestroyOptions, IpsetOutcome } from './ipset/ipset';
