// A kubeconfig file, read as client-go reads it: the current context's cluster and user, every entry
// checked as client-node checks it, file paths relative to the kubeconfig's directory made absolute,
// *-data fields decoded. Errors name the flag, the file and the field.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface ClusterSettings {
  /** Without a trailing slash. */
  server: string;
  caFile?: string;
  caData?: Buffer;
  skipTLSVerify: boolean;
  tlsServerName?: string;
  /** Honoured through client-node (client-node-credentials.ts). */
  proxyUrl?: string;
}

export interface UserSettings {
  token?: string;
  /** `tokenFile` (client-go's key) or `token-file` (client-node's), read again as it rotates. */
  tokenFile?: string;
  certFile?: string;
  certData?: Buffer;
  keyFile?: string;
  keyData?: Buffer;
  username?: string;
  password?: string;
  /** `as`: the Impersonate-User header. */
  impersonate?: string;
  /** A credential plugin, run through client-node (client-node-credentials.ts). */
  plugin?: 'exec' | 'auth-provider';
}

export interface KubeconfigSelection {
  cluster: ClusterSettings;
  user: UserSettings;
  /** The files the selected entries name, for requireFiles(): checked after the placeholder server is. */
  files: NamedFile[];
}

/** A file path field: `what` names it (`--kubeconfig: F: user "u": tokenFile`). */
export interface NamedFile { what: string; path: string }

/** Throws for the first file that does not exist: it is read at load or for each request. */
export function requireFiles(files: readonly NamedFile[]): void {
  for (const f of files) if (!fs.existsSync(f.path)) throw new Error(`${f.what} ${f.path} does not exist`);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const kindOf = (v: unknown): string => (Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'object' ? 'a map' : `a ${typeof v}`);

/** Reads `file`'s current context; throws `--kubeconfig: <file>...` errors. */
export function readKubeconfigFile(file: string): KubeconfigSelection {
  const where = `--kubeconfig: ${file}`;
  const doc = parseDocument(file, where);
  const clusters = entries(doc, 'clusters', where, ['cluster', 'cluster.server']);
  const users = entries(doc, 'users', where, []);
  const contexts = entries(doc, 'contexts', where, ['context', 'context.cluster']);
  const current = doc['current-context'];
  const context = contexts.find((c) => c.name === current)?.context as Obj | undefined;
  const cluster = clusters.find((c) => c.name === context?.cluster)?.cluster as Obj | undefined;
  if (!context || !cluster) {
    const why = typeof current !== 'string' || current === '' ? 'no current-context' : !context ? `current-context ${JSON.stringify(current)} is not among its contexts` : `context ${JSON.stringify(current)} names cluster ${JSON.stringify(context.cluster)}, which is not among its clusters`;
    throw new Error(`${where} has no current cluster (${why})`);
  }
  const dir = path.dirname(file);
  const files: NamedFile[] = [];
  const settings = clusterSettings(cluster, { where: `${where}: cluster ${JSON.stringify(context.cluster)}`, dir, files });
  // A context without a user is anonymous; one naming a user the file lacks is a mistake (client-go).
  const userName = context.user;
  if (userName === undefined || userName === null || userName === '') return { cluster: settings, user: {}, files };
  const user = users.find((u) => u.name === userName);
  if (!user) throw new Error(`${where}: context ${JSON.stringify(current)} names user ${JSON.stringify(userName)}, which is not among its users`);
  return { cluster: settings, user: userSettings(isObj(user.user) ? user.user : {}, { where: `${where}: user ${JSON.stringify(userName)}`, dir, files }), files };
}

/** Where an entry's fields are: for messages, relative paths, and the files they name. */
interface Entry { where: string; dir: string; files: NamedFile[] }

function parseDocument(file: string, where: string): Obj {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${where}: cannot be read: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new Error(`${where} is not valid YAML: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isObj(doc)) throw new Error(`${where} is not a kubeconfig: its top level is ${kindOf(doc)}, not a map`);
  return doc;
}

/** A list of named entries, each with the fields client-node requires (`a.b`: field b of map a). */
function entries(doc: Obj, key: string, where: string, required: string[]): Obj[] {
  const list = doc[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new Error(`${where}: ${key} is ${kindOf(list)}, not a list`);
  return list.map((e: unknown, i) => {
    if (!isObj(e) || !e.name) throw new Error(`${where}: ${key}[${i}].name is missing`);
    for (const r of required) {
      const [outer, inner] = r.split('.');
      const v = e[outer];
      if (!v || (inner && !(isObj(v) && v[inner]))) throw new Error(`${where}: ${key}[${i}].${r} is missing`);
    }
    return e;
  });
}

function clusterSettings(c: Obj, e: Entry): ClusterSettings {
  const where = e.where;
  const skip = c['insecure-skip-tls-verify'];
  if (skip !== undefined && skip !== null && typeof skip !== 'boolean') throw new Error(`${where}: insecure-skip-tls-verify is ${kindOf(skip)}, not true or false`);
  return {
    server: (text(c, 'server', where) as string).replace(/\/$/, ''),
    caFile: file(c, 'certificate-authority', e),
    caData: base64(c, 'certificate-authority-data', where),
    skipTLSVerify: skip === true,
    tlsServerName: text(c, 'tls-server-name', where),
    proxyUrl: text(c, 'proxy-url', where),
  };
}

function userSettings(u: Obj, e: Entry): UserSettings {
  const where = e.where;
  const s: UserSettings = {
    token: text(u, 'token', where),
    tokenFile: file(u, 'tokenFile', e) ?? file(u, 'token-file', e),
    certFile: file(u, 'client-certificate', e),
    certData: base64(u, 'client-certificate-data', where),
    keyFile: file(u, 'client-key', e),
    keyData: base64(u, 'client-key-data', where),
    username: text(u, 'username', where),
    password: text(u, 'password', where),
    impersonate: text(u, 'as', where),
    plugin: u.exec ? 'exec' : u['auth-provider'] ? 'auth-provider' : undefined,
  };
  const hasCert = !!(s.certFile || s.certData);
  if (hasCert !== !!(s.keyFile || s.keyData)) throw new Error(`${where}: ${hasCert ? 'client-certificate without client-key' : 'client-key without client-certificate'} (give both, as a file or as -data)`);
  return s;
}

/** A string field; absent, null and '' are absent (as client-node reads them). */
function text(o: Obj, key: string, where: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new Error(`${where}: ${key} is ${kindOf(v)}, not a string`);
  return v;
}

/** A file path field, relative to the kubeconfig's directory unless absolute (client-go); noted for requireFiles. */
function file(o: Obj, key: string, e: Entry): string | undefined {
  const p = text(o, key, e.where);
  if (p === undefined) return undefined;
  const abs = path.isAbsolute(p) ? p : path.join(e.dir, p);
  e.files.push({ what: `${e.where}: ${key}`, path: abs });
  return abs;
}

function base64(o: Obj, key: string, where: string): Buffer | undefined {
  const v = text(o, key, where);
  if (v === undefined) return undefined;
  const compact = v.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new Error(`${where}: ${key} is not base64`);
  return Buffer.from(compact, 'base64');
}
