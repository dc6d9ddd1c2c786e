import type * as z from 'zod';
import { ConfigError } from '../errors.js';
import type { SwitchyardConfig } from './config-schema.js';

/** `models.gpt-mini.price` — keys that are not plain identifiers are bracketed: `models["a.b"]`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    // `$` is a name character (`schema.$schema`, `$defs`), as in a JS property access.
    else if (/^[A-Za-z0-9_$-]+$/.test(String(part))) out += out ? `.${String(part)}` : String(part);
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): ConfigError {
  const [first] = issues;
  const lines = issues.slice(0, 5).map((issue) => {
    const at = formatPath(issue.path);
    return at ? `${at}: ${issue.message}` : issue.message;
  });
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : '';
  return new ConfigError(first ? formatPath(first.path) : '', `invalid config: ${lines.join('; ')}${more}`);
}

/** Checks that the schema alone cannot express: references between sections, name clashes. */
function checkReferences(config: SwitchyardConfig): void {
  for (const [name, schedule] of Object.entries(config.schedules)) {
    if (!Object.hasOwn(config.pipelines, schedule.pipeline)) {
      const known = Object.keys(config.pipelines).join(', ') || 'none';
      throw new ConfigError(
        `schedules.${name}.pipeline`,
        `unknown pipeline '${schedule.pipeline}' (known: ${known})`,
      );
    }
    const ids = new Set<string>();
    for (const [index, job] of schedule.jobs.entries()) {
      if (ids.has(job.id))
        throw new ConfigError(`schedules.${name}.jobs[${index}].id`, `'${job.id}' is used twice`);
      ids.add(job.id);
    }
    if (schedule.deliver && !schedule.deliver.secretName && !schedule.deliver.secretEnv) {
      throw new ConfigError(
        `schedules.${name}.deliver`,
        'needs secretName (AWS) or secretEnv (local) to sign deliveries',
      );
    }
  }
  const names = new Map<string, string>();
  for (const [key, model] of Object.entries(config.models)) {
    if (!config.providers[model.provider]) {
      const known = Object.keys(config.providers).join(', ') || 'none';
      throw new ConfigError(
        `models.${key}.provider`,
        `unknown provider '${model.provider}' (known: ${known})`,
      );
    }
    names.set(key, key);
  }
  for (const [key, model] of Object.entries(config.models)) {
    for (const [index, alias] of model.aliases.entries()) {
      const owner = names.get(alias);
      if (owner !== undefined && owner !== key) {
        throw new ConfigError(`models.${key}.aliases[${index}]`, `'${alias}' already names model '${owner}'`);
      }
      names.set(alias, key);
    }
  }
}

/** Parses config objects and config JSON text against one config schema. */
export interface ConfigParser<C extends SwitchyardConfig> {
  /**
   * Validates a parsed config object. Throws `ConfigError` naming the first bad field (and listing
   * up to five problems), so start-up fails with one readable line.
   */
  parseConfig(raw: unknown): C;
  /** Parses config JSON text; `source` (a file path) appears in the error when the JSON is broken. */
  parseConfigText(text: string, source: string): C;
}

/**
 * The config parser of `schema` (from `createConfigSchema`, with the registered provider
 * families). `check` runs after the references are checked, for the rules the families add
 * (e.g. which provider types serve embeddings); it throws `ConfigError`. Default: none.
 */
export function createConfigParser<C extends SwitchyardConfig>(
  schema: z.ZodType<C, unknown>,
  check: (config: C) => void = () => {},
): ConfigParser<C> {
  const parseConfig = (raw: unknown): C => {
    const result = schema.safeParse(raw);
    if (!result.success) throw describeIssues(result.error.issues);
    checkReferences(result.data);
    check(result.data);
    return result.data;
  };
  const parseConfigText = (text: string, source: string): C => {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new ConfigError('', `${source} is not valid JSON: ${detail}`, { cause: error });
    }
    return parseConfig(raw);
  };
  return { parseConfig, parseConfigText };
}
