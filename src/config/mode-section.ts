// The contract between the mode-independent configuration core and each proxy mode's own section
// (src/proxier/<mode>/config.ts). The core composes sections through this interface and never reads a
// section's fields; each mode owns its section's shape, defaults, conversion, validation and flags.
import type { Schema } from './schema';

export type ApiVersion = 'v1alpha1' | 'v1alpha2';

/** A validation error. `path` is the v1alpha2 field path; `reset` lists the fields to put back to
 *  their defaults when configHardFail is false (default: `path` itself). */
export interface FieldError { path: string; message: string; reset?: string[] }

/** Fields that were per-mode in v1alpha1 and are top-level (or under `linux`) in v1alpha2. */
export interface Hoisted { syncPeriod?: number; minSyncPeriod?: number; masqueradeAll?: boolean }

export type FlagType =
  | 'string' | 'bool' | 'int32' | 'float' | 'duration' | 'strings' | 'boolMap' | 'ip' | 'ipPort' | 'level' | 'version' | 'quantity';

/** A command-line flag. `scope`: 'option' acts in every case; 'logging' overrides the config file when set;
 *  'config' is ignored (with a warning) when --config is given, as upstream ignores it. */
export interface FlagSpec {
  name: string;
  shorthand?: string;
  type: FlagType;
  defaultText: string;
  help: string;
  scope: 'option' | 'logging' | 'config';
  /** The v1alpha2 field the flag sets, so that a validation error of its value names the flag. */
  field?: string;
  /** Accepted for compatibility but without effect here: why (docs/configuration.md lists them). Given
   *  on the command line, the flag is named in one start-up notice (src/config/no-effect.ts). */
  noEffect?: string;
}

export interface ModeFlagTarget<S> { section: S; top: Hoisted; mode: string }

/** A mode's binding of a flag: either it declares the flag (`spec`) or it listens to a flag another part
 *  declares (`listen`), e.g. IPVS uses --iptables-masquerade-bit as upstream's IPVS mode did. */
export type ModeFlag<S> =
  | { spec: FlagSpec; apply(t: ModeFlagTarget<S>, value: unknown): void }
  | { listen: string; field?: string; apply(t: ModeFlagTarget<S>, value: unknown): void };

export interface ModeConfig<S extends object> {
  /** The section's key in KubeProxyConfiguration, which is also the mode's name. */
  readonly name: 'iptables' | 'ipvs' | 'nftables';
  /** Upstream converts v1alpha1 with a blank mode using this mode's section (iptables). */
  readonly blankModeUsesThis?: boolean;
  readonly schema: Record<ApiVersion, Schema>;
  defaultsV1alpha1(): Record<string, unknown>;
  defaultsV1alpha2(): S;
  /** Converts a defaulted v1alpha1 section. `doc` is the whole defaulted v1alpha1 document (read-only),
   *  for the few values upstream's v1alpha1 took from elsewhere. `renames` maps v1alpha2 paths to the
   *  v1alpha1 paths they came from, so errors name the field the operator wrote. */
  fromV1alpha1(v1: Record<string, unknown>, doc: Readonly<Record<string, unknown>>, mode: string):
    { section: S; hoisted: Hoisted; renames: Record<string, string> };
  /** Converts back; `lost` names v1alpha2 fields v1alpha1 cannot express with their current value. */
  toV1alpha1(section: S, ctx: { mode: string; top: Required<Hoisted>; doc: Readonly<Record<string, unknown>> }):
    { section: Record<string, unknown>; lost: string[] };
  validate(section: S, ctx: { mode: string }): FieldError[];
  readonly flags: ModeFlag<S>[];
  startupWarnings?(ctx: { mode: string }): string[];
}
