// `kube-proxy-native explain NAMESPACE/SERVICE [--port NAME|NUMBER] [-o text|json] [flags]`: the
// subcommand's own words, taken off the command line before the proxy's flags are parsed (the rest
// are the proxy's flags and config, so that explain sees what the proxy sees). Pure.
import { allFlagSpecs } from './flags';

export interface ExplainRequest {
  namespace: string;
  name: string;
  /** --port: a ServicePort's name or number; absent = every ServicePort. */
  port?: string;
  output: 'text' | 'json';
}

export interface ExplainArgs {
  request?: ExplainRequest;
  /** The proxy's flags, for the usual parser. */
  rest: string[];
  errors: string[];
}

export const EXPLAIN_USAGE = 'kube-proxy-native explain NAMESPACE/SERVICE [--port NAME|NUMBER] [-o text|json] [the proxy\'s flags]';

/** A DNS-1123 label (namespace) and a Service name (a DNS-1035 label). */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SERVICE = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** `argv` after the word `explain`. */
export function parseExplainArgs(argv: readonly string[]): ExplainArgs {
  const errors: string[] = [];
  const rest: string[] = [];
  const positional: string[] = [];
  let port: string | undefined;
  let output = 'text';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const own = /^(--port|-o|--output)(?:=(.*))?$/.exec(a);
    if (own) {
      const value = own[2] ?? argv[++i];
      if (value === undefined || value === '') errors.push(`explain: ${own[1]} needs a value`);
      else if (own[1] === '--port') port = value;
      else output = value;
    } else if (a.startsWith('-')) {
      rest.push(a);
    } else if (rest.length > 0 && takesValue(rest[rest.length - 1])) {
      rest.push(a); // the value of the proxy flag before it: `--kubeconfig /path`
    } else {
      positional.push(a);
    }
  }
  if (output !== 'text' && output !== 'json') errors.push(`explain: -o ${JSON.stringify(output)}: text or json`);
  if (port !== undefined && !isPortNameOrNumber(port)) {
    errors.push(`explain: --port ${JSON.stringify(port)}: a ServicePort's name or number`);
  }
  if (positional.length !== 1) {
    errors.push(`explain: ${positional.length === 0 ? 'which Service?' : `one Service, got ${positional.join(' ')}`} (usage: ${EXPLAIN_USAGE})`);
    return { rest, errors };
  }
  const [namespace, name, extra] = positional[0].split('/');
  if (extra !== undefined || name === undefined || !NAMESPACE.test(namespace) || !SERVICE.test(name)) {
    errors.push(`explain: ${JSON.stringify(positional[0])} is not NAMESPACE/SERVICE`);
    return { rest, errors };
  }
  return { request: { namespace, name, ...(port !== undefined ? { port } : {}), output: output as 'text' | 'json' }, rest, errors };
}

/** 1..65535, or a port name (IANA_SVC_NAME: lowercase letters, digits and '-', a letter at least, at most 15). */
function isPortNameOrNumber(p: string): boolean {
  if (/^[0-9]+$/.test(p)) return Number(p) >= 1 && Number(p) <= 65535;
  return p.length <= 15 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(p) && /[a-z]/.test(p);
}

/** A `--flag` (or `-x`) without `=value` whose value is the next word: any flag of the proxy's but bool ones. */
function takesValue(flag: string): boolean {
  const m = /^--?([a-zA-Z][-a-zA-Z0-9]*)$/.exec(flag);
  if (!m) return false;
  const spec = allFlagSpecs().find((f) => f.name === m[1] || f.shorthand === m[1]);
  return spec !== undefined && spec.type !== 'bool' && spec.type !== 'version';
}
