// The in-memory kernels tests run on without root: FakeKernel/FakeNft for nftables
// (docs/fake-kernel.md), FakeIpvs and FakeRtnl for the IPVS mode (docs/ipvs-mode.md, "The fakes").
// Each fake `implements` the interface declared beside its real class (NftApi in nft/nft.ts,
// IpvsHandle in ipvs/ipvs-types.ts, RtnlHandle in rtnl/rtnl-types.ts), so a fake that drifts from
// the real handle does not compile. Not shipped: tsconfig.build.json leaves this folder out, and no
// production file may import it (test/architecture/import-rules.ts).
export { FakeKernel } from './fake-kernel';
export { FakeNft } from './fake-nft';
export type { FakeCommit, FakeFault } from './fake-nft';
export { FakeIpvs, FAKE_IPVS_SCHEDULERS } from './fake-ipvs';
export type { FakeIpvsFault, FakeIpvsCalls } from './fake-ipvs';
export { FakeRtnl } from './fake-rtnl';
export type { FakeRtnlFault, FakeRtnlCalls } from './fake-rtnl';
