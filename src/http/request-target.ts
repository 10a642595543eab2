// The request line's target as our servers route on it, parsed without ever throwing (`new URL()` throws
// on `//`, which used to kill the process). Follows Go's url.ParseRequestURI, which upstream's servers
// use: origin-form (`/p?q`), absolute-form (`http://h/p?q`, routed on its path) and `*`; anything else,
// or a bad `%` escape, is a 400. Paths are matched percent-decoded, as Go's r.URL.Path is.

/** Longer targets are refused outright (Node's header limit already stops them near 16 KiB). */
export const MAX_TARGET_LENGTH = 8192;

export interface RequestTarget {
  /** The request said `*` (as in `OPTIONS *`); path is then "*". */
  asterisk: boolean;
  /** Percent-decoded path; always starts with "/" unless asterisk. */
  path: string;
  /** The raw query after "?", without the "?" ("" when none). */
  query: string;
}

export type TargetResult = { ok: true; target: RequestTarget } | { ok: false; reason: string };

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/;

export function parseRequestTarget(raw: string | undefined): TargetResult {
  if (!raw) return { ok: false, reason: 'empty request target' };
  if (raw.length > MAX_TARGET_LENGTH) return { ok: false, reason: `request target longer than ${MAX_TARGET_LENGTH} characters` };
  if (raw === '*') return { ok: true, target: { asterisk: true, path: '*', query: '' } };
  let rest = raw;
  if (!rest.startsWith('/')) {
    const authority = ABSOLUTE_FORM.exec(rest);
    if (!authority) return { ok: false, reason: 'request target is neither a path, "*" nor an absolute URL' };
    rest = rest.slice(authority[0].length);
    if (!rest.startsWith('/')) rest = `/${rest}`;
  }
  const q = rest.indexOf('?');
  const rawPath = q < 0 ? rest : rest.slice(0, q);
  const path = percentDecode(rawPath);
  if (path === undefined) return { ok: false, reason: 'invalid percent-encoding in the path' };
  return { ok: true, target: { asterisk: false, path, query: q < 0 ? '' : rest.slice(q + 1) } };
}

const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;

/** `%XX` escapes decoded as UTF-8 bytes (invalid sequences become U+FFFD); undefined on a bad escape. */
export function percentDecode(s: string): string | undefined {
  if (!s.includes('%')) return s;
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = s.indexOf('%'); i >= 0; i = s.indexOf('%', from)) {
    const hex = s.slice(i + 1, i + 3);
    if (!HEX_PAIR.test(hex)) return undefined;
    parts.push(Buffer.from(s.slice(from, i), 'utf8'), Buffer.from([parseInt(hex, 16)]));
    from = i + 3;
  }
  parts.push(Buffer.from(s.slice(from), 'utf8'));
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Go's ServeMux cleanPath: "." and ".." resolved, repeated slashes folded, a trailing slash kept
 * ("//" -> "/", "/a/../healthz" -> "/healthz", "/x/" -> "/x/").
 */
export function cleanPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  const clean = `/${out.join('/')}`;
  return p.endsWith('/') && clean !== '/' ? `${clean}/` : clean;
}

const UNRESERVED = /^[A-Za-z0-9\-._~/]$/;

/** A decoded path made safe for a Location header: every byte but "/" and unreserved ones escaped. */
export function escapePath(p: string): string {
  let out = '';
  for (const b of Buffer.from(p, 'utf8')) {
    const c = String.fromCharCode(b);
    out += UNRESERVED.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
