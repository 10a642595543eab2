// Small plain-text answers in the form Go's http.Error and http.NotFound give them.
import type { ServerResponse } from 'node:http';

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function notFound(res: ServerResponse): void {
  sendText(res, 404, '404 page not found\n');
}
