// POSTs one events.k8s.io/v1 Event, with the kubeconfig's TLS settings and credentials (the same
// ApiCredentials the watchers use). Everything else about Events (building them, the queue, what is
// dropped) is event-recorder.ts's.
import * as http from 'node:http';
import * as https from 'node:https';
import type { ApiCredentials } from './api-credentials';
import { ApiError, hostOf, parseStatus, type RequestObserver, requestUrl, tlsHint } from './api-request';

/** An answer's body beyond this is not read (a created Event is echoed back: about 1 KiB). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What deploy/rbac.yaml must grant for it (test/packaging/deploy.test.ts checks). */
export const EVENTS_GRANT = { apiGroup: 'events.k8s.io', resource: 'events', verbs: ['create'] } as const;

export function eventsPath(namespace: string): string {
  return `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`;
}

/** Resolves once the API server has created the Event; rejects with an ApiError on any other answer.
 *  `observer` counts and times it as client-go's metrics count every request (rest_client_*). */
export async function postEvent(credentials: ApiCredentials, namespace: string, event: object, timeoutMs: number,
  observer?: RequestObserver): Promise<void> {
  const host = hostOf(credentials.server);
  const started = process.hrtime.bigint();
  const done = (code: string): void => {
    observer?.requestResult(code, 'POST', host);
    observer?.requestLatency('POST', host, Number(process.hrtime.bigint() - started) / 1e9);
  };
  let status: number;
  let text: string;
  try {
    ({ status, text } = await send(credentials, namespace, event, timeoutMs));
  } catch (e) {
    done('<error>');
    throw e;
  }
  done(String(status));
  if (status >= 200 && status < 300) return;
  const st = parseStatus(text);
  const reason = st.reason ?? http.STATUS_CODES[status] ?? 'Unknown';
  throw new ApiError(status, `POST ${eventsPath(namespace)}: HTTP ${status} ${reason}${st.message ? `: ${st.message}` : ''}`, st.reason);
}

async function send(credentials: ApiCredentials, namespace: string, event: object, timeoutMs: number): Promise<{ status: number; text: string }> {
  const path = eventsPath(namespace);
  const what = `POST ${path}`;
  const body = Buffer.from(JSON.stringify(event));
  const opts: https.RequestOptions = {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
  };
  await credentials.applyTo(opts);
  return exchange(requestUrl(credentials.server, path, {}), opts, body, timeoutMs, what);
}

function exchange(url: URL, opts: https.RequestOptions, body: Buffer, timeoutMs: number, what: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, opts);
    const timer = setTimeout(() => req.destroy(new Error(`${what}: no answer within ${timeoutMs / 1000}s`)), timeoutMs).unref();
    req.on('error', (err) => {
      clearTimeout(timer);
      const e = tlsHint(err, url.origin) as Error;
      reject(e.message.startsWith(what) ? e : new Error(`${what}: ${e.message}`));
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_ANSWER_BYTES) chunks.push(c);
      });
      res.on('error', () => undefined);
      res.on('close', () => {
        clearTimeout(timer);
        if (!res.complete) reject(new Error(`${what}: connection closed before the answer was complete`));
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.end(body);
  });
}
