/**
 * A config validated once at synth and trusted at a Lambda's start when its text is unchanged.
 * `cdk synth` writes, beside the bundled `switchyard.config.json`, a record of what validating it
 * gave: the SHA-256 of the config text and the parsed config (every default filled). A function
 * starting up reads the record and uses its config only when the digest matches the text it
 * ships with; anything else (no record, a broken record, a config edited after synth) is
 * validated in full, so a broken config is refused with the same `ConfigError` as before.
 * docs/design.md#configuration-validated-at-synth says why.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SwitchyardConfig } from './switchyard-config.js';
import { parseConfigText } from './switchyard-config.js';

/** The record's file name beside a config file `x.json`: `x.validated.json`. */
export function validatedRecordPath(configPath: string): string {
  return `${configPath.replace(/\.json$/, '')}.validated.json`;
}

/** What `cdk synth` writes beside the bundled config. */
interface ValidatedRecord {
  /** SHA-256 (hex) of the config file's text that was validated. */
  sha256: string;
  /** The config as validation returned it. */
  config: SwitchyardConfig;
}

const digestOf = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Validates config `text` (read from `source`, named in errors) and returns the record to write
 * beside it. Throws `ConfigError` for a broken config, so a synth never ships one.
 */
export function validatedConfigRecord(text: string, source: string): string {
  const record: ValidatedRecord = { sha256: digestOf(text), config: parseConfigText(text, source) };
  return JSON.stringify(record);
}

/**
 * The config validated at synth when `recordText` (the record beside the config, if any) was
 * written for exactly this config `text`; otherwise `undefined`, and the caller validates `text`.
 */
export function trustedConfig(text: string, recordText: string | undefined): SwitchyardConfig | undefined {
  if (recordText === undefined) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(recordText);
  } catch {
    return undefined;
  }
  if (typeof record !== 'object' || record === null) return undefined;
  const { sha256, config } = record as Partial<ValidatedRecord>;
  if (typeof sha256 !== 'string' || typeof config !== 'object' || config === null) return undefined;
  return sha256 === digestOf(text) ? config : undefined;
}

/** The record beside `configPath`, or `undefined` when there is none or it cannot be read. */
export function readValidatedRecord(configPath: string): string | undefined {
  try {
    return readFileSync(validatedRecordPath(configPath), 'utf8');
  } catch {
    return undefined;
  }
}
