import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from 'aws-cdk-lib';
import { loadConfig } from '../lambda/config/config-file.js';
import type { SwitchyardConfig } from '../lambda/config/switchyard-config.js';

const EMBEDDED = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'lambda',
  'config',
  'default-config.json',
);

/** Where the config is looked for. Default: this process's environment and working directory. */
export interface ConfigLookup {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The config a deployment ships, the file bundled with it, and whether that is the embedded default. */
export interface StackConfig {
  config: SwitchyardConfig;
  configFile: string;
  embedded: boolean;
}

/**
 * The config a deployment ships: `-c config=FILE`, else `SWITCHYARD_CONFIG`, else
 * `./switchyard.config.json`, else the embedded default — the same rules as the CLI. The file is
 * validated here, at synth time, and bundled next to the handler.
 */
export function stackConfig(
  app: App,
  lookup: ConfigLookup = { env: process.env, cwd: process.cwd() },
): StackConfig {
  const flag = app.node.tryGetContext('config') as string | undefined;
  const { config, origin } = loadConfig({ flag, env: lookup.env, cwd: lookup.cwd });
  const configFile = origin.kind === 'file' ? origin.path : EMBEDDED;
  if (!existsSync(configFile)) throw new Error(`config file ${resolve(configFile)} does not exist`);
  return { config, configFile, embedded: origin.kind === 'embedded' };
}
