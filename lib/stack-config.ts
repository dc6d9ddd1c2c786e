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

/**
 * The config a deployment ships: `-c config=FILE`, else `SWITCHYARD_CONFIG`, else
 * `./switchyard.config.json`, else the embedded default — the same rules as the CLI. The file is
 * validated here, at synth time, and bundled next to the handler.
 */
export function stackConfig(app: App): { config: SwitchyardConfig; configFile: string } {
  const flag = app.node.tryGetContext('config') as string | undefined;
  const { config, origin } = loadConfig({ flag, env: process.env, cwd: process.cwd() });
  const configFile = origin.kind === 'file' ? origin.path : EMBEDDED;
  if (!existsSync(configFile)) throw new Error(`config file ${resolve(configFile)} does not exist`);
  return { config, configFile };
}
