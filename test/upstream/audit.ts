// The tier's kube-apiserver writes every request's metadata to an audit log (control-plane.sh's
// policy: level Metadata, stages ResponseStarted and ResponseComplete). Tests read what one user
// asked for and what it was answered, since a point in time.
import * as fs from 'node:fs';
import { controlPlane } from './control-plane';

export interface AuditEvent {
  auditID: string;
  stage: 'ResponseStarted' | 'ResponseComplete' | 'Panic';
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  userAgent?: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string; subresource?: string };
  responseStatus?: { code?: number; reason?: string };
  requestReceivedTimestamp: string;
}

/**
 * The requests of `username` received at or after `since`, one per request: its ResponseComplete
 * event, or ResponseStarted for a watch still open (that one is logged when the watch ends).
 */
export function auditedRequests(username: string, since: Date): AuditEvent[] {
  const text = fs.readFileSync(controlPlane().auditLog, 'utf8');
  const byId = new Map<string, AuditEvent>();
  for (const line of text.split('\n')) {
    if (!line.includes(username)) continue; // cheap filter before parsing a long log
    const e = JSON.parse(line) as AuditEvent;
    if (e.user.username !== username || new Date(e.requestReceivedTimestamp) < since) continue;
    if (!byId.has(e.auditID) || e.stage !== 'ResponseStarted') byId.set(e.auditID, e);
  }
  return [...byId.values()];
}

/** "verb group/resource" of a request, e.g. "watch discovery.k8s.io/endpointslices", "list /services". */
export function grantKey(e: AuditEvent): string {
  const r = e.objectRef ?? {};
  return `${e.verb} ${r.apiGroup ?? ''}/${r.resource ?? e.requestURI}${r.subresource ? `/${r.subresource}` : ''}`;
}
