// The --help text, generated from the flag table.
import { allFlagSpecs } from './flags';
import type { FlagSpec } from './mode-section';
import { MODES } from './modes';

const TYPE_NAMES: Record<FlagSpec['type'], string> = {
  string: 'string', bool: '', int32: 'int32', float: 'float32', duration: 'duration', strings: 'strings',
  boolMap: 'mapStringBool', ip: 'ip', ipPort: 'ipport', level: 'Level', version: 'version[=true]', quantity: 'quantity',
};

const IGNORED = ' This parameter is ignored if a config file is specified by --config.';

function line(s: FlagSpec): string {
  const base = s.scope === 'config' && !s.help.includes(IGNORED.trim()) ? s.help + IGNORED : s.help;
  const help = s.noEffect ? `${base} [No effect in kube-proxy-native: ${s.noEffect}.]` : base;
  const names = s.shorthand ? `-${s.shorthand}, --${s.name}` : `    --${s.name}`;
  const type = TYPE_NAMES[s.type] ? ` ${TYPE_NAMES[s.type]}` : '';
  const dflt = s.type === 'bool' || s.defaultText === '""' || s.defaultText === '[]' ? '' : ` (default ${s.defaultText})`;
  return `  ${names}${type}\n        ${help}${dflt}`;
}

export function helpText(): string {
  const specs = [...allFlagSpecs()].sort((a, b) => a.name.localeCompare(b.name));
  // What each mode says when it starts (the IPVS deprecation) belongs in the help too.
  const notes = MODES.flatMap((m) => m.startupWarnings?.({ mode: m.name }) ?? []).map((n) => `NOTE: ${n}.`);
  return [
    'kube-proxy-native: a drop-in replacement for the Kubernetes network proxy (kube-proxy).',
    'It watches Services and EndpointSlices and programs the node\'s kernel (nftables) to route their traffic.',
    '',
    'Proxy modes: nftables (default) and ipvs.',
    ...notes,
    '',
    'Usage:',
    '  kube-proxy-native [flags]',
    '  kube-proxy-native explain NAMESPACE/SERVICE [--port NAME|NUMBER] [-o text|json] [flags]',
    '      what the proxy does on this node for one Service, and why: its addresses and policies, every',
    '      endpoint used or not (with the reason), the path of a new connection, and the kernel objects',
    '      looked up by key, each as expected or not (nftables mode; the same flags as the proxy)',
    '',
    'When --config is given, the file decides everything except the logging flags (-v, --logging-format,',
    '--vmodule, --log-flush-frequency, --log-{text,json}-split-stream, --log-{text,json}-info-buffer-size)',
    'and --hostname-override, which win when set, and the command flags',
    '(--cleanup, --write-config-to, --master, --init-only, --dry-run, --diff); other flags are ignored, as upstream does.',
    '',
    'Flags:',
    ...specs.map(line),
    '',
  ].join('\n');
}
