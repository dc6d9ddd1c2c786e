import { type AdmissionSettings, admissionSchema } from '../core/catalog/admission-config-schema.js';
import type { Logger } from '../core/logger.js';
import type { ParameterSource } from './parameter-snapshot.js';

/** `/switchyard` → `/switchyard/admission`: the operators' override of the whole `admission` section. */
export function admissionParameterName(ssmPrefix: string): string {
  return `${ssmPrefix.replace(/\/+$/, '')}/admission`;
}

/**
 * The admission settings in force in AWS (docs/configuration.md#admission): the SSM parameter
 * `<prefix>/admission` (JSON of the `admission` section, checked by the same schema) when it is
 * set and valid, else the config's. It comes from the container's parameter snapshot — no SSM call
 * of its own — so a change applies within `aws.chainCacheMs` ± 20 % without a deploy, exactly like
 * a chain override. A value that fails the schema is logged once (naming the field) and skipped;
 * before any snapshot was read, and while SSM fails with none, the config's settings apply.
 */
export function createSsmAdmissionSettings(options: {
  source: ParameterSource;
  config: AdmissionSettings;
  log: Logger;
}): () => Promise<AdmissionSettings> {
  const { source, config, log } = options;
  const name = admissionParameterName(source.prefix);
  // Parsed once per distinct value, not per request.
  let seen: { raw: string; settings: AdmissionSettings } | undefined;
  const parse = (raw: string): AdmissionSettings => {
    if (seen?.raw === raw) return seen.settings;
    let settings = config;
    try {
      const parsed = admissionSchema.safeParse(JSON.parse(raw));
      if (parsed.success) settings = parsed.data;
      else {
        const issue = parsed.error.issues[0];
        const field = ['admission', ...(issue?.path ?? [])].join('.');
        log.error('SSM admission override is invalid; using the config', {
          parameter: name,
          field,
          problem: issue?.message,
        });
      }
    } catch {
      log.error('SSM admission override is not JSON; using the config', { parameter: name });
    }
    seen = { raw, settings };
    return settings;
  };
  return async () => {
    let raw: string | undefined;
    try {
      raw = (await source.read()).values.get(name);
    } catch {
      return config;
    }
    return raw === undefined ? config : parse(raw);
  };
}
