// Parsing of flag values the way pflag and Go's strconv do; each parser throws an Error saying why.
import { parseDuration } from './duration';
import type { FlagType } from './mode-section';
import { ipFamily, splitHostPort } from './net';
import { parseQuantity } from './quantity';

export function parseGoBool(v: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw new Error('must be a boolean (true or false)');
}

/** strconv.ParseInt(v, 0, 32): decimal, 0x hex, 0o/0 octal, 0b binary. */
export function parseGoInt32(v: string): number {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9]\d*|0)$/.exec(v);
  if (!m) throw new Error('must be an integer');
  let body = m[2];
  let n: number;
  if (/^0[xX]/.test(body)) n = parseInt(body.slice(2), 16);
  else if (/^0[bB]/.test(body)) n = parseInt(body.slice(2), 2);
  else if (/^0[oO]?[0-7]+$/.test(body) && body.length > 1) n = parseInt(body.replace(/^0[oO]?/, ''), 8);
  else n = parseInt(body, 10);
  if (m[1] === '-') n = -n;
  if (n < -2147483648 || n > 2147483647) throw new Error('value out of range for int32');
  return n;
}

export function parseGoFloat(v: string): number {
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(v)) throw new Error('must be a number');
  return Number(v);
}

/** pflag's string slices: comma-separated, empty means an empty list. */
export function parseList(v: string): string[] {
  return v === '' ? [] : v.split(',').map((s) => s.trim());
}

/** "A=true,B=false" (cliflag.MapStringBool). */
export function parseBoolMap(v: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const part of parseList(v)) {
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`missing bool value for ${part}`);
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    try {
      out[name] = parseGoBool(raw);
    } catch {
      throw new Error(`invalid value of ${name}: ${raw}, must be true or false`);
    }
  }
  return out;
}

export function parseFlagValue(type: FlagType, v: string): unknown {
  switch (type) {
    case 'string': return v;
    case 'bool': return parseGoBool(v);
    case 'int32': return parseGoInt32(v);
    case 'float': return parseGoFloat(v);
    case 'duration': return parseDuration(v);
    case 'strings': return parseList(v);
    case 'boolMap': return parseBoolMap(v);
    case 'ip':
      if (ipFamily(v) === 0) throw new Error(`"${v}" is not a valid IP address`);
      return v;
    case 'ipPort': {
      if (v === '' || ipFamily(v) !== 0) return v;
      const hp = splitHostPort(v);
      if (!hp || ipFamily(hp.host) === 0) throw new Error(`"${v}" is not in a valid format (ip or ip:port)`);
      return v;
    }
    case 'level': {
      if (!/^\d+$/.test(v) || Number(v) > 2147483647) throw new Error('must be a non-negative integer');
      return Number(v);
    }
    case 'quantity':
      parseQuantity(v);
      return v;
    case 'version':
      if (v === 'raw') return 'raw';
      return parseGoBool(v) ? 'true' : 'false';
  }
}
