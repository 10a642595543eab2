// Ways an API server (or the network in front of it) fails without closing the connection: the
// failures a client cannot see as an error, only as time passing. "Down" (connection refused) needs no
// fault: TestApiServer.stop() and restart() give it.
import type * as http from 'node:http';

export type RequestKind = 'list' | 'watch';

export type Fault =
  /** The connection is accepted and the request read, but nothing is ever sent back, not even headers. */
  | { mode: 'no-headers' }
  /** `200` headers are sent, then nothing: no body bytes for a list, no event or bookmark for a watch. */
  | { mode: 'silent' }
  /** A list's real body, `bytes` bytes every `everyMs` (lists only). */
  | { mode: 'trickle'; bytes: number; everyMs: number };

interface Rule {
  pathPrefix: string;
  kind: RequestKind;
  fault: Fault;
}

/** The faults in force, by path prefix and request kind; the last one set for a request wins. */
export class FaultRules {
  private rules: Rule[] = [];

  set(pathPrefix: string, kind: RequestKind, fault: Fault | undefined): void {
    if (fault?.mode === 'trickle') {
      if (kind !== 'list') throw new Error('trickle fault: applies to lists only');
      if (!(Number.isInteger(fault.bytes) && fault.bytes > 0 && fault.everyMs > 0)) throw new Error('trickle fault: bytes and everyMs must be positive');
    }
    this.rules = this.rules.filter((r) => r.pathPrefix !== pathPrefix || r.kind !== kind);
    if (fault) this.rules.push({ pathPrefix, kind, fault });
  }

  clear(): void {
    this.rules = [];
  }

  find(path: string, kind: RequestKind): Fault | undefined {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const r = this.rules[i];
      if (r.kind === kind && path.startsWith(r.pathPrefix)) return r.fault;
    }
    return undefined;
  }
}

/** Headers of a streamed JSON answer, flushed now, as the API server does for watches. */
export function sendStreamHeaders(res: http.ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
}

/** Sends `body` (a complete answer with status `code`) a few bytes at a time; stops if the client goes. */
export function trickle(res: http.ServerResponse, code: number, body: string, bytes: number, everyMs: number): void {
  const data = Buffer.from(body, 'utf8');
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': data.length });
  res.flushHeaders();
  let sent = 0;
  const timer = setInterval(() => {
    const end = Math.min(data.length, sent + bytes);
    res.write(data.subarray(sent, end));
    sent = end;
    if (sent >= data.length) {
      clearInterval(timer);
      res.end();
    }
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}
