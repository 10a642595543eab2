// Kubernetes resource quantities (apimachinery's resource.ParseQuantity syntax), for the logging
// options' infoBufferSize: a decimal number with an optional suffix, binary (Ki Mi Gi Ti Pi Ei),
// decimal (m k M G T P E) or an exponent (e3, E-2). Returns the value; throws saying why.
const SUFFIX: Record<string, number> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

export function parseQuantity(s: string): number {
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/.exec(s.trim());
  if (!m || s.trim() !== s) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  const suffix = m[2] ?? '';
  const scale = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : SUFFIX[suffix];
  return Number(m[1]) * scale;
}
