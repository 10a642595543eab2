// The credentials of a kubeconfig or the in-cluster service account, applied to each request by our
// own code: CA, client certificate and key (files read again for each request, so rotated ones are
// used), server verification and name, a bearer token (static, or a file read again every minute),
// basic authentication and impersonation. What client-node's applyToHTTPSOptions did for these, without
// loading client-node.
import * as fs from 'node:fs';
import type * as http from 'node:http';
import type * as https from 'node:https';
import type { Clock } from '../base/clock';
import type { ApiCredentials } from './api-credentials';
import type { ClusterSettings, UserSettings } from './kubeconfig-file';
import { TokenFile } from './token-file';

export interface TokenFileOptions {
  /** How old a token file's copy may get before it is read again (default 60 s). */
  tokenMaxAgeMs?: number;
  clock?: Pick<Clock, 'now'>;
}

/** Reads a user's token file once now, so a missing or empty one fails the load, not the first request. */
export function nativeCredentials(cluster: ClusterSettings, user: UserSettings, o: TokenFileOptions = {}): ApiCredentials {
  // A token given inline wins over a token file, as with client-node before.
  const tokenFile = !user.token && user.tokenFile ? new TokenFile(user.tokenFile, o.tokenMaxAgeMs, o.clock) : undefined;
  tokenFile?.token();
  return {
    server: cluster.server,
    applyTo: async (opts) => {
      applyTls(opts, cluster, user);
      applyAuth(opts, user, tokenFile);
    },
  };
}

function applyTls(opts: https.RequestOptions, cluster: ClusterSettings, user: UserSettings): void {
  // A one-off agent for each request, as client-node's per-request agent: no connection is pooled.
  opts.agent = false;
  if (cluster.skipTLSVerify) opts.rejectUnauthorized = false;
  if (cluster.tlsServerName) opts.servername = cluster.tlsServerName;
  const ca = fileOrData(cluster.caFile, cluster.caData);
  if (ca) opts.ca = ca;
  const cert = fileOrData(user.certFile, user.certData);
  if (cert) opts.cert = cert;
  const key = fileOrData(user.keyFile, user.keyData);
  if (key) opts.key = key;
}

function applyAuth(opts: https.RequestOptions, user: UserSettings, tokenFile: TokenFile | undefined): void {
  const headers = (opts.headers ??= {}) as http.OutgoingHttpHeaders;
  const token = user.token ?? tokenFile?.token();
  if (token) headers.Authorization = `Bearer ${token}`;
  else if (user.username) headers.Authorization = `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}`;
  if (user.impersonate) headers['Impersonate-User'] = user.impersonate;
}

/** A file wins over inline data, as client-node read them. */
function fileOrData(file: string | undefined, data: Buffer | undefined): Buffer | undefined {
  return file ? fs.readFileSync(file) : data;
}
