// Import boundaries (see import-rules.ts), enforced on the real source tree; a synthetic tree with one
// violation of each rule proves the check can fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { checkTree } from './import-rules';

// dist/test/architecture -> the repository root
const SRC = path.resolve(__dirname, '../../../src');

test('the real source tree respects the import boundaries', () => {
  assert.ok(existsSync(path.join(SRC, 'proxier')), `no src/proxier under ${SRC}`);
  const { violations, scanned } = checkTree(SRC);
  const rel = scanned.map((f) => path.relative(SRC, f).split(path.sep).join('/'));
  for (const f of ['proxier/nftables/config.ts', 'proxier/ipvs/config.ts', 'proxier/iptables/config.ts', 'config/modes.ts']) {
    assert.ok(rel.includes(f), `${f} was not scanned`);
  }
  assert.ok(rel.filter((f) => f.startsWith('proxier/')).length >= 3);
  assert.ok(rel.some((f) => f.startsWith('native/testing/')), 'the fakes were not scanned');
  assert.deepEqual(violations, []);
});

test('the check finds each kind of violation in a synthetic tree', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'kpn-arch-'));
  try {
    const src = path.join(root, 'src');
    const file = (p: string, text: string) => {
      mkdirSync(path.dirname(path.join(src, p)), { recursive: true });
      writeFileSync(path.join(src, p), text);
    };
    file('proxier/nftables/proxier.ts', "import { x } from '../ipvs/sync';\nexport const y = require('../nftables/names');\n");
    file('proxier/nftables/names.ts', 'export {};\n');
    file('proxier/ipvs/sync.ts', "export * from '../../proxier/nftables';\n");
    file('proxier/ipvs/config.ts', "import type { ModeConfig } from '../../config/mode-section';\nimport { s } from './sync';\n");
    file('core/model.ts', "const p = import('../proxier/nftables/proxier');\n");
    file('config/flags.ts', "import { ipvsConfig } from '../proxier/ipvs/config';\nimport { a } from '../native';\nimport { b } from './modes';\n");
    file('config/modes.ts', "import { ipvsConfig } from '../proxier/ipvs/config';\nimport { z } from '../proxier/ipvs/sync';\n");
    file('health/report.ts', "import { w } from '../k8s/watch';\nimport { b } from '../base/log';\n");
    file('native/nft.ts', "import type { Log } from '../base/log';\n");
    file('policy/local-detector.ts', "import type { RuleBuilder } from '../native';\nimport { ServicePort } from '../core/model';\n");
    file('extra/thing.ts', "import { c } from '../core';\n");
    file('k8s/app-user.ts', "import { start } from '../app/proxy-app';\n");
    file('app/proxy-app.ts', "import { runExplain } from '../commands/explain';\n");
    file('metrics/command-user.ts', "import { listOnce } from '../commands/list-once';\n");
    file('native/index.ts', "export { FakeNft } from './testing/fake-nft';\n");
    file('native/testing/fake-nft.ts', "import type { NftApi } from '../nft/nft';\n");
    file('cleanup/ipvs.ts', "import { FakeIpvs } from '../native/testing';\n");
    const { violations } = checkTree(src);
    assert.deepEqual(violations.map((v) => `${v.file} -> ${v.imports}: ${v.rule}`).sort(), [
      "src/app/proxy-app.ts -> ../commands/explain: src/app imports a command (src/commands builds on src/app)",
      "src/cleanup/ipvs.ts -> ../native/testing: production code imports the fakes (src/native/testing)",
      "src/config/flags.ts -> ../native: src/config imports src/native",
      "src/config/flags.ts -> ../proxier/ipvs/config: src/config may import a mode only from config/modes.ts, and only its config.ts",
      "src/config/modes.ts -> ../proxier/ipvs/sync: src/config may import a mode only from config/modes.ts, and only its config.ts",
      "src/core/model.ts -> ../proxier/nftables/proxier: src/core imports a proxier",
      "src/extra/thing.ts -> ../core: src/extra is not in the import table (FOLDER_IMPORTS)",
      "src/health/report.ts -> ../k8s/watch: src/health may import only base, http, not src/k8s",
      "src/k8s/app-user.ts -> ../app/proxy-app: src/k8s may import only base, not src/app",
      "src/metrics/command-user.ts -> ../commands/list-once: src/metrics may import only base, http, not src/commands",
      "src/native/index.ts -> ./testing/fake-nft: production code imports the fakes (src/native/testing)",
      "src/native/nft.ts -> ../base/log: src/native may import no other folder, not src/base",
      "src/policy/local-detector.ts -> ../core/model: src/policy may import only native, not src/core",
      "src/proxier/ipvs/config.ts -> ./sync: a mode's config.ts may import only config/mode-section, config/net, config/schema, config/duration",
      "src/proxier/ipvs/sync.ts -> ../../proxier/nftables: mode ipvs imports mode nftables",
      "src/proxier/nftables/proxier.ts -> ../ipvs/sync: mode nftables imports mode ipvs",
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
