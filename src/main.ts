// `kube-proxy-native [flags]`: parse the command line, then run the proxy, clean up, write the
// configuration, or print help/version. Returns the process exit code.
import { writeFileSync } from 'node:fs';
import { parseCommandLine, startupNotices, startupWarnings, type CommandLine } from './config';
import { cleanupSucceeded, runCleanup } from './cleanup';
import { createLogger, installLastResort, type Logger } from './log';
import { startProxy } from './app/proxy-app';
import { applyOomScoreAdj } from './app/oom-score';
import { runInitOnly } from './commands/init-only';
import { runDryRun } from './commands/dry-run';
import { runExplain } from './commands/explain';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const VERSION: string = require('../../package.json').version;

function printVersion(cl: CommandLine): number {
  if (cl.versionRaw) process.stdout.write(`${JSON.stringify({ gitVersion: `v${VERSION}`, platform: `${process.platform}/${process.arch}`, goVersion: process.version })}\n`);
  else process.stdout.write(`kube-proxy-native v${VERSION}\n`);
  return 0;
}

function writeConfig(cl: CommandLine): number {
  const out = cl.output!;
  try {
    writeFileSync(out.path, out.content);
  } catch (e) {
    process.stderr.write(`--write-config-to: cannot write ${out.path}: ${(e as Error).message}\n`);
    return 1;
  }
  process.stderr.write(`Wrote configuration to ${out.path}\n`);
  return 0;
}

async function cleanup(log: Logger, excludeCIDRs: readonly string[]): Promise<number> {
  const r = await runCleanup({ log, excludeCIDRs });
  return cleanupSucceeded(r) ? 0 : 1;
}

/** As upstream's "Error running ProxyServer" and exit 1: a start-up error says what, without a stack. */
function startFailed(e: Error, log: Logger, what: string, msg = 'Error running ProxyServer'): number {
  log.error({ err: e.message }, msg);
  log.debug({ stack: e.stack }, 'Where it failed');
  process.stderr.write(`kube-proxy-native: ${what}${e.message}\n`);
  return 1;
}

/** A command that runs once and exits: 0 when `body` resolves, 1 with its error said (prefixed by `what`). */
async function once(log: Logger, what: string, body: () => Promise<unknown>, msg?: string): Promise<number> {
  try {
    await body();
    return 0;
  } catch (e) {
    return startFailed(e as Error, log, what, msg);
  }
}

const initOnly = (cl: CommandLine, log: Logger) => once(log, '--init-only: ', () => runInitOnly({ config: cl.config, log }));

/** `--dry-run` and `explain` print their answer on standard output; logs and errors go to standard error. */
async function readOnly(cl: CommandLine, log: Logger): Promise<number> {
  for (const w of startupWarnings(cl.config)) log.warn({}, w);
  const common = { config: cl.config, log, master: cl.master, out: process.stdout };
  if (cl.action === 'explain') return once(log, 'explain: ', () => runExplain({ ...common, request: cl.explain! }), 'explain failed');
  return once(log, '--dry-run: ', () => runDryRun({ ...common, diff: cl.diff }), 'The dry run failed');
}

async function run(cl: CommandLine, log: Logger): Promise<number> {
  for (const w of startupWarnings(cl.config)) log.warn({}, w);
  for (const n of startupNotices(cl.config, cl.flagsWithoutEffect)) log.info({}, n);
  if (cl.initOnly) return initOnly(cl, log);
  applyOomScoreAdj(cl.config.linux.oomScoreAdj, log);
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  try {
    proxy = await startProxy({ config: cl.config, log, master: cl.master });
  } catch (e) {
    return startFailed(e as Error, log, '');
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'Shutting down; the programmed rules stay in place');
      resolve();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await proxy.stop();
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const cl = parseCommandLine(argv);
  if (cl.action === 'help') {
    process.stdout.write(cl.helpText ?? '');
    return 0;
  }
  if (cl.action === 'version') return printVersion(cl);
  const { format, verbosity, options } = cl.config.logging;
  // A dry run's standard output is its script, explain's its answer: every log line goes to standard error.
  const log = createLogger({ format, verbosity, splitStream: options[format as 'text' | 'json']?.splitStream,
    ...(cl.action === 'dry-run' || cl.action === 'explain' ? { infoDestination: process.stderr } : {}) });
  // From here on an error nothing handled is logged with its stack and exits 1 (see src/log/last-resort.ts).
  installLastResort(log);
  for (const w of cl.warnings) log.warn({}, w);
  if (cl.errors.length > 0) {
    for (const e of cl.errors) log.error({}, e);
    process.stderr.write(`kube-proxy-native: invalid configuration:\n${cl.errors.map((e) => `  ${e}`).join('\n')}\n`);
    return 1;
  }
  switch (cl.action) {
    case 'write-config': return writeConfig(cl);
    case 'cleanup': return cleanup(log, cl.config.ipvs.excludeCIDRs);
    case 'dry-run':
    case 'explain': return readOnly(cl, log);
    default: return run(cl, log);
  }
}
