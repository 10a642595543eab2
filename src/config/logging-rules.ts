// The logging rules of upstream's component-base logs/api/v1 Validate that concern options we have:
// the per-format options are alpha, refused unless the LoggingAlphaOptions feature gate is on, and
// vmodule is refused with any format but text.
import type { FieldError } from './mode-section';
import { parseQuantity } from './quantity';
import type { KubeProxyConfiguration } from './types';

export const LOGGING_ALPHA_GATE = 'LoggingAlphaOptions';

export function validateLoggingOptions(c: KubeProxyConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  const gateOn = c.featureGates[LOGGING_ALPHA_GATE] === true;
  for (const fmt of ['text', 'json'] as const) {
    const o = c.logging.options[fmt];
    const path = `logging.options.${fmt}`;
    if (o.splitStream && !gateOn) errs.push({ path: `${path}.splitStream`, message: `Forbidden: Feature ${LOGGING_ALPHA_GATE} is disabled` });
    let size: number | undefined;
    try {
      size = parseQuantity(o.infoBufferSize);
    } catch (e) {
      errs.push({ path: `${path}.infoBufferSize`, message: `invalid quantity ${JSON.stringify(o.infoBufferSize)}: ${(e as Error).message}` });
    }
    if (size !== undefined && size !== 0 && !gateOn) {
      errs.push({ path: `${path}.infoBufferSize`, message: `Forbidden: Feature ${LOGGING_ALPHA_GATE} is disabled` });
    }
  }
  if (c.logging.vmodule.length > 0 && c.logging.format !== 'text' && c.logging.format !== '') {
    errs.push({ path: 'logging.vmodule', message: 'Forbidden: Only supported for text log format' });
  }
  return errs;
}
