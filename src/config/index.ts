// The entry point the main program calls: from argv (and a way to read the --config file) to what to do
// and the effective configuration. Pure apart from the injected file reader.
import { parseExplainArgs, type ExplainRequest } from './explain-args';
import { readFileSync } from 'node:fs';
import { defaultsFor, loadConfigData, LoadedFile } from './decode';
import { applyConfigFlags, applyLoggingFlags, allFlagSpecs, flagFields, flagScope } from './flags';
import { parseFlags } from './flag-parse';
import { helpText } from './help';
import { flagsWithoutEffect } from './no-effect';
import type { FieldError } from './mode-section';
import type { KubeProxyConfiguration } from './types';
import { validate } from './validate';
import { applyPlatformDefaults } from './platform-defaults';
import { toV1alpha2Yaml } from './write';

export type { KubeProxyConfiguration } from './types';
export { startupNotices, startupWarnings } from './startup';
export { noEffectReasons, NO_EFFECT_NOTICE_PREFIX } from './no-effect';
export { toV1alpha2Yaml, toV1alpha1Yaml } from './write';
export { loadConfigData } from './decode';
export { validate } from './validate';
export { formatDuration, parseDuration } from './duration';
export { effectiveMode } from './effective';
export { EXPLAIN_USAGE, type ExplainRequest } from './explain-args';
export { configzBody, internalConfigJSON } from './configz';
export { applyPlatformDefaults, NODE_PORT_ADDRESSES_PRIMARY } from './platform-defaults';

export type Action = 'run' | 'cleanup' | 'write-config' | 'dry-run' | 'explain' | 'version' | 'help';

export interface CommandLine {
  action: Action;
  /** The effective configuration (v1alpha2 shape, durations in milliseconds). */
  config: KubeProxyConfiguration;
  /** Non-empty: print them and exit non-zero (whatever the action). */
  errors: string[];
  /** Log each at warn level, then go on. */
  warnings: string[];
  helpText?: string;
  /** --version=raw */
  versionRaw?: boolean;
  /** action 'write-config': write `content` to `path`, then exit 0. */
  output?: { path: string; content: string };
  configFile?: string;
  /** --master: overrides the kubeconfig's server URL. */
  master?: string;
  initOnly: boolean;
  /** action 'dry-run' with --diff: print only what a sync would change. */
  diff: boolean;
  /** action 'explain': which Service, which port, which output. */
  explain?: ExplainRequest;
  /** Flags given that are accepted but have no effect here (see startupNotices). */
  flagsWithoutEffect: string[];
}

export interface Io {
  readFile(path: string): Uint8Array | string;
}

export const nodeIo: Io = { readFile: (p) => readFileSync(p) };

function actionOf(values: Map<string, unknown>): Action {
  if (values.get('help') === true) return 'help';
  const v = values.get('version');
  if (v === 'true' || v === 'raw') return 'version';
  if (values.has('write-config-to') && values.get('write-config-to') !== '') return 'write-config';
  if (values.get('cleanup') === true) return 'cleanup';
  if (values.get('dry-run') === true) return 'dry-run';
  return 'run';
}

/** --dry-run runs alone (it changes nothing, the other commands change or write something); --diff only with it. */
function commandErrors(values: Map<string, unknown>): string[] {
  const dryRun = values.get('dry-run') === true;
  if (!dryRun) return values.get('diff') === true ? ['--diff: only with --dry-run (it prints what a sync would change)'] : [];
  const others = ['cleanup', 'init-only'].filter((f) => values.get(f) === true);
  if (values.has('write-config-to') && values.get('write-config-to') !== '') others.push('write-config-to');
  return others.map((f) => `--dry-run: cannot be combined with --${f}`);
}

/** explain reads and prints; the flags that make the command do something else are refused. */
function explainErrors(values: Map<string, unknown>): string[] {
  const others = ['cleanup', 'init-only', 'dry-run', 'diff'].filter((f) => values.get(f) === true);
  if (values.has('write-config-to') && values.get('write-config-to') !== '') others.push('write-config-to');
  return others.map((f) => `explain: cannot be combined with --${f}`);
}

function getPath(o: any, path: string): unknown {
  return path.split('.').reduce((x, k) => (x == null ? undefined : x[k]), o);
}

function setPath(o: any, path: string, v: unknown): void {
  const keys = path.split('.');
  const last = keys.pop() as string;
  const parent = keys.reduce((x, k) => x[k], o);
  parent[last] = structuredClone(v);
}

const unique = (xs: string[]) => [...new Set(xs)];
const stripIndex = (p: string) => p.replace(/\[\d+\]$/, '');

interface Origin { describe(e: FieldError): string }

/** With configHardFail false, each invalid field goes back to its default and validation runs again. */
function settle(config: KubeProxyConfiguration, defaults: KubeProxyConfiguration, origin: Origin):
  { errors: string[]; fellBack: string[] } {
  const fellBack: string[] = [];
  for (let round = 0; round < 5; round++) {
    const errs = validate(config);
    if (errs.length === 0) return { errors: [], fellBack: unique(fellBack) };
    for (const e of errs) {
      for (const p of (e.reset ?? [stripIndex(e.path)])) setPath(config, p, getPath(defaults, p));
      fellBack.push(`${origin.describe(e)}; using the default instead`);
    }
  }
  return { errors: unique(validate(config).map(origin.describe)), fellBack: unique(fellBack) };
}

function labelFor(file: LoadedFile | undefined, flagOf: Map<string, string>): Origin {
  return {
    describe(e: FieldError) {
      const flag = flagOf.get(stripIndex(e.path));
      if (flag) return `${flag}: ${e.message}`;
      if (!file) return `${e.path}: ${e.message}`;
      const loc = file.locate(e.path);
      return `${loc.path}: ${e.message}${loc.line === undefined ? '' : ` (line ${loc.line})`}`;
    },
  };
}

interface Base {
  config: KubeProxyConfiguration;
  /** What an invalid field falls back to: the defaults of the source's version. */
  defaults: KubeProxyConfiguration;
  file?: LoadedFile;
  fieldErrors: string[];
  warnings: string[];
}

/** The configuration from --config; the config-scope flags are ignored (with a warning), as upstream. */
function fromFile(configFile: string, values: Map<string, unknown>, io: Io): Base | { errors: string[] } {
  let data: Uint8Array | string;
  try {
    data = io.readFile(configFile);
  } catch (e) {
    return { errors: [`--config: cannot read ${JSON.stringify(configFile)}: ${(e as Error).message}`] };
  }
  const file = loadConfigData(data);
  if (!file.config || !file.version) return { errors: file.fatal.map((m) => `${configFile}: ${m}`) };
  const ignored = [...values.keys()].filter((name) => flagScope(name) === 'config')
    .map((name) => `--${name} is ignored because --config is given (as in upstream kube-proxy); set it in ${configFile}`);
  return {
    config: file.config, defaults: defaultsFor(file.version), file,
    fieldErrors: file.fieldErrors, warnings: [...file.warnings, ...ignored],
  };
}

/** Without a file, flags apply over the v1alpha1 defaults, as upstream kube-proxy does. */
function fromFlags(values: Map<string, unknown>): Base {
  const defaults = defaultsFor('v1alpha1');
  const config = structuredClone(defaults);
  applyConfigFlags(config, values);
  return { config, defaults, fieldErrors: [], warnings: [] };
}

/** The flags that win over a config file: logging flags and --hostname-override. */
function applyOverrides(config: KubeProxyConfiguration, values: Map<string, unknown>, errors: string[]): void {
  applyLoggingFlags(config, values);
  const hostname = values.get('hostname-override') as string | undefined;
  if (hostname === undefined || hostname === '') return;
  if (hostname.trim() === '') errors.push('--hostname-override: must not be blank');
  else config.hostnameOverride = hostname.trim().toLowerCase();
}

/** configHardFail decides whether problems are errors or warnings with a fallback to the defaults. */
function judge(b: Base, origin: Origin, errors: string[], warnings: string[]): void {
  if (b.config.configHardFail) {
    errors.push(...b.fieldErrors, ...unique(validate(b.config).map(origin.describe)));
    return;
  }
  warnings.push(...b.fieldErrors.map((m) => `${m}; ignoring it (the default applies)`));
  const settled = settle(b.config, b.defaults, origin);
  warnings.push(...settled.fellBack);
  errors.push(...settled.errors);
}

export function parseCommandLine(argv: readonly string[], io: Io = nodeIo): CommandLine {
  const explain = argv[0] === 'explain' ? parseExplainArgs(argv.slice(1)) : undefined;
  const { values, errors } = parseFlags(explain ? explain.rest : argv, allFlagSpecs());
  const flagAction = actionOf(values);
  const action: Action = explain && flagAction !== 'help' && flagAction !== 'version' ? 'explain' : flagAction;
  errors.push(...(explain ? explain.errors : []), ...(explain ? explainErrors(values) : commandErrors(values)));
  const base: Omit<CommandLine, 'config'> = {
    action, errors, warnings: [], initOnly: values.get('init-only') === true, diff: values.get('diff') === true,
    ...(explain?.request ? { explain: explain.request } : {}),
    master: values.get('master') as string | undefined, versionRaw: values.get('version') === 'raw',
    flagsWithoutEffect: flagsWithoutEffect(values.keys(), Boolean(values.get('config'))),
  };
  const fallback = (): CommandLine => ({ ...base, config: defaultsFor('v1alpha1') });
  if (action === 'help') return { ...fallback(), errors: [], helpText: helpText() };
  if (action === 'version') return { ...fallback(), errors: [] };
  if (errors.length > 0) return fallback();

  const configFile = (values.get('config') as string | undefined) || undefined;
  const b = configFile ? fromFile(configFile, values, io) : fromFlags(values);
  if ('errors' in b) return { ...fallback(), configFile, errors: b.errors };
  const warnings = [...b.warnings];
  applyOverrides(b.config, values, errors);
  // Upstream applies them before validating; again after judging, since a field an invalid value
  // reset to its version's default (configHardFail false) may be blank again.
  applyPlatformDefaults(b.config);
  judge(b, labelFor(b.file, flagFields(values, configFile ? ['logging'] : ['config', 'logging'])), errors, warnings);
  applyPlatformDefaults(b.config);
  const result: CommandLine = { ...base, config: b.config, errors, warnings, configFile };
  if (action === 'write-config' && errors.length === 0) {
    result.output = { path: values.get('write-config-to') as string, content: toV1alpha2Yaml(b.config) };
  }
  return result;
}
