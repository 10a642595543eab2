// Flags accepted for compatibility but without effect here (FlagSpec.noEffect says why for each):
// the ones the operator gave are named in one start-up line, never silently dropped. A config-scope
// flag given with --config is left out: it is already reported as ignored.
import { allFlagSpecs } from './flags';

export const NO_EFFECT_NOTICE_PREFIX = 'flags accepted for compatibility but without effect here:';

/** The flags given (by canonical name) that have no effect here, in command-line order. */
export function flagsWithoutEffect(given: Iterable<string>, configFile: boolean): string[] {
  const specs = new Map(allFlagSpecs().map((s) => [s.name, s]));
  return [...given].filter((name) => {
    const s = specs.get(name);
    return s?.noEffect !== undefined && !(configFile && s.scope === 'config');
  });
}

/** The one line to log, or nothing when no such flag was given. */
export function noEffectNotice(flags: readonly string[]): string | undefined {
  if (flags.length === 0) return undefined;
  return `${NO_EFFECT_NOTICE_PREFIX} ${flags.map((f) => `--${f}`).join(', ')} (docs/configuration.md#flags-without-effect says why)`;
}

/** Each flag without effect and why, for the docs and --help. */
export function noEffectReasons(): { flag: string; why: string }[] {
  return allFlagSpecs().filter((s) => s.noEffect !== undefined).map((s) => ({ flag: `--${s.name}`, why: s.noEffect! }));
}
