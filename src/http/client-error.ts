// What to answer when Node's HTTP parser rejects a request before any handler sees it ('clientError'),
// in the shape Go's net/http uses for the same cases ("400 Bad Request", plain text, connection closed).
import { STATUS_CODES } from 'node:http';

/** Errors that mean the client went away: nothing to answer, nothing to report. */
const GONE = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** The status to answer a parser or timeout error with; undefined when the client is already gone. */
export function clientErrorStatus(code: string | undefined): number | undefined {
  if (code !== undefined && GONE.has(code)) return undefined;
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') return 408;
  // The client closed its side in the middle of a request: it reads no answer.
  if (code === 'HPE_INVALID_EOF_STATE') return undefined;
  return 400;
}

/** A complete HTTP/1.1 response written straight to the socket, closing the connection. */
export function rawResponse(status: number): string {
  const body = `${status} ${STATUS_CODES[status] ?? 'Error'}`;
  return `HTTP/1.1 ${body}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
}
