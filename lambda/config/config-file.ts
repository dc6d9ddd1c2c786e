import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.js';
import defaultConfig from './default-config.json' with { type: 'json' };
import type { SwitchyardConfig } from './switchyard-config.js';
import { parseConfig, parseConfigText } from './switchyard-config.js';
import { readValidatedRecord, trustedConfig } from './validated-config.js';

/** Where the config was read from: a file path, or the embedded default. */
export type ConfigOrigin = { kind: 'file'; path: string } | { kind: 'embedded' };

export interface LoadedConfig {
  config: SwitchyardConfig;
  origin: ConfigOrigin;
}

/** The config file looked for in the working directory when nothing else names one. */
export const LOCAL_CONFIG_FILE = 'switchyard.config.json';

/**
 * Reads the config by the rules of docs/design.md#configuration: `--config`, else `SWITCHYARD_CONFIG`, else
 * `./switchyard.config.json`, else the embedded default. A named file that is missing is an
 * error (never a silent fall back to the default); so is a file that fails validation.
 *
 * `trustValidatedAtSynth` (a Lambda's start; default false): a config file whose record of
 * validation at synth lies beside it (`lambda/config/validated-config.ts`) and matches its text
 * is taken from the record instead of being validated again; any other file is validated.
 */
export function loadConfig(options: {
  flag?: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
  trustValidatedAtSynth?: boolean;
}): LoadedConfig {
  const trust = options.trustValidatedAtSynth ?? false;
  const named = options.flag ?? (options.env.SWITCHYARD_CONFIG || undefined);
  if (named !== undefined)
    return {
      config: readConfigFile(resolve(options.cwd, named), trust),
      origin: fileOrigin(options.cwd, named),
    };
  const local = resolve(options.cwd, LOCAL_CONFIG_FILE);
  if (existsSync(local))
    return { config: readConfigFile(local, trust), origin: { kind: 'file', path: local } };
  return { config: parseConfig(defaultConfig), origin: { kind: 'embedded' } };
}

function fileOrigin(cwd: string, named: string): ConfigOrigin {
  return { kind: 'file', path: resolve(cwd, named) };
}

function readConfigFile(path: string, trustValidatedAtSynth: boolean): SwitchyardConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : (code ?? 'unreadable');
    throw new ConfigError('', `cannot read config ${path}: ${why}`, { cause: error });
  }
  const trusted = trustValidatedAtSynth ? trustedConfig(text, readValidatedRecord(path)) : undefined;
  return trusted ?? parseConfigText(text, path);
}

/** The embedded default config (no API keys needed to read it). */
export function embeddedConfig(): SwitchyardConfig {
  return parseConfig(defaultConfig);
}
