// A bearer token kept in a file that is rewritten while the proxy runs (the kubelet rotates projected
// service account tokens), read again once the copy in memory is a minute old, as client-go's cached
// file token source and client-node's file authenticator do.
import * as fs from 'node:fs';
import { systemClock, type Clock } from '../base/clock';

export const TOKEN_FILE_MAX_AGE_MS = 60_000;

export class TokenFile {
  private cached: string | undefined;
  private readAt = 0;

  constructor(
    readonly path: string,
    private readonly maxAgeMs = TOKEN_FILE_MAX_AGE_MS,
    private readonly clock: Pick<Clock, 'now'> = systemClock,
  ) {}

  /**
   * The token, read again if the last read is `maxAgeMs` old. A failed re-read keeps the token
   * already read (as client-go: a token being rewritten must not fail requests); a failed first
   * read throws.
   */
  token(): string {
    const now = this.clock.now();
    if (this.cached !== undefined && now - this.readAt < this.maxAgeMs) return this.cached;
    try {
      this.cached = readToken(this.path);
      this.readAt = now;
    } catch (e) {
      if (this.cached === undefined) throw e;
    }
    return this.cached;
  }
}

/** The file's token, without surrounding whitespace (a trailing newline is common); empty is an error. */
export function readToken(file: string): string {
  const token = fs.readFileSync(file, 'utf8').trim();
  if (token === '') throw new Error(`token file ${file} is empty`);
  return token;
}
