// A pflag-compatible command-line scanner: --name=value, --name value, --bool, --bool=false, -v=4, -v 4,
// -v4, "--" ending the flags, `_` in a long name read as `-` (as upstream normalises them). Values are parsed by type; repeated list/map flags accumulate as pflag's do.
import { parseFlagValue } from './flag-values';
import type { FlagSpec } from './mode-section';

export interface ParsedFlags {
  /** Flag name -> parsed value, only for flags given on the command line. */
  values: Map<string, unknown>;
  errors: string[];
}

const TAKES_NO_VALUE = new Set(['bool', 'version']);

function display(spec: FlagSpec): string {
  return spec.shorthand ? `-${spec.shorthand}, --${spec.name}` : `--${spec.name}`;
}

function store(values: Map<string, unknown>, spec: FlagSpec, parsed: unknown): void {
  const prev = values.get(spec.name);
  if (spec.type === 'strings' && Array.isArray(prev)) values.set(spec.name, [...prev, ...(parsed as string[])]);
  else if (spec.type === 'boolMap' && prev) values.set(spec.name, { ...(prev as object), ...(parsed as object) });
  else values.set(spec.name, parsed);
}

export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): ParsedFlags {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.shorthand).map((s) => [s.shorthand as string, s]));
  const values = new Map<string, unknown>();
  const errors: string[] = [];

  const set = (spec: FlagSpec, raw: string) => {
    try {
      store(values, spec, parseFlagValue(spec.type, raw));
    } catch (e) {
      errors.push(`invalid argument ${JSON.stringify(raw)} for "${display(spec)}" flag: ${(e as Error).message}`);
    }
  };

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      for (const rest of argv.slice(i + 1)) errors.push(`unexpected argument ${JSON.stringify(rest)}: kube-proxy takes no arguments, only flags`);
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      // Upstream's WordSepNormalizeFunc: --cluster_cidr is --cluster-cidr.
      const spec = byName.get(name.replace(/_/g, '-'));
      if (!spec) { errors.push(`unknown flag: --${name}`); continue; }
      if (eq >= 0) set(spec, arg.slice(eq + 1));
      else if (TAKES_NO_VALUE.has(spec.type)) set(spec, 'true');
      else if (i + 1 < argv.length) set(spec, argv[++i]);
      else errors.push(`flag needs an argument: --${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      // Shorthand cluster: bools may be combined (-hv is not useful, but pflag allows it); a flag
      // that takes a value consumes the rest of the argument, or the next one.
      let j = 1;
      while (j < arg.length) {
        const c = arg[j];
        const spec = byShort.get(c);
        if (!spec) { errors.push(`unknown shorthand flag: '${c}' in ${arg}`); break; }
        const rest = arg.slice(j + 1);
        if (rest.startsWith('=')) { set(spec, rest.slice(1)); break; }
        if (TAKES_NO_VALUE.has(spec.type)) { set(spec, 'true'); j++; continue; }
        if (rest !== '') { set(spec, rest); break; }
        if (i + 1 < argv.length) set(spec, argv[++i]);
        else errors.push(`flag needs an argument: '${c}' in ${arg}`);
        break;
      }
      continue;
    }
    errors.push(`unexpected argument ${JSON.stringify(arg)}: kube-proxy takes no arguments, only flags`);
  }
  return { values, errors };
}
