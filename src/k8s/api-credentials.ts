// What a request to the API server needs of a kubeconfig: where the server is, and the TLS settings
// and credentials to reach it with. Our own loader gives it for the common cases (native-credentials.ts),
// client-node's KubeConfig for the rest (client-node-credentials.ts).
import type * as https from 'node:https';

export interface ApiCredentials {
  /** The API server's URL (scheme, host, port, optional path prefix), without a trailing slash. */
  readonly server: string;
  /**
   * Puts into `opts`, for one request, the agent, TLS settings (CA, client certificate and key,
   * verification, server name) and authentication headers. Files are read as needed, so rotated
   * certificates and tokens are followed; rejects when one cannot be read.
   */
  applyTo(opts: https.RequestOptions): Promise<void>;
}
