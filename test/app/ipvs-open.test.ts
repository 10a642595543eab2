// openIpvsKernel's start-up errors: "needs IPVS" only when the kernel lacks it (this host's kernel has
// no IPVS), the real reason otherwise (here a network namespace that cannot be entered).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openIpvsKernel } from '../../src/app/ipvs-parts';
import { parseCommandLine } from '../../src/config';
import { createLogger } from '../../src/log';
import { withNetns } from '../helpers/netns';

const log = createLogger({ format: 'json', verbosity: 0, destination: { write: () => true } });
const config = () => parseCommandLine(['--proxy-mode=ipvs'], { readFile: () => '' }).config;

test('a kernel without IPVS: the mode says it needs IPVS and points to nftables', async () => {
  await withNetns(async (ns) => {
    await assert.rejects(openIpvsKernel({ config: config(), log, netns: ns.path }),
      /^Error: proxy mode "ipvs" needs IPVS in the kernel: .*no IPVS.*; use mode nftables instead$/);
  });
});

test('another failure to open IPVS is not called a missing IPVS', async () => {
  await assert.rejects(openIpvsKernel({ config: config(), log, netns: '/run/netns/kpn-does-not-exist' }), (e: Error) => {
    assert.match(e.message, /^proxy mode "ipvs": cannot open IPVS: .*open netns/);
    assert.doesNotMatch(e.message, /needs IPVS/);
    return true;
  });
});
