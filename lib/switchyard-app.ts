import type { App } from 'aws-cdk-lib';
import { type ConfigLookup, stackConfig } from './stack-config.js';
import { stackNameFor } from './stage-names.js';
import { SwitchyardStack } from './switchyard-stack.js';

/** Where `buildSwitchyardApp` reads its config and says what it bundles. */
export interface SwitchyardAppOptions extends ConfigLookup {
  /** Receives one line naming the stack and the config file. Default: stderr (stdout is the template). */
  log: (line: string) => void;
}

const DEFAULTS: SwitchyardAppOptions = {
  env: process.env,
  cwd: process.cwd(),
  log: (line) => process.stderr.write(`${line}\n`),
};

/**
 * The CDK app's one stack: the config by the CLI's rules (`-c config=FILE`, `SWITCHYARD_CONFIG`,
 * `./switchyard.config.json`, the embedded default), the stack named after its stage
 * (`Switchyard`, `Switchyard-<stage>`), in the CLI's account and region. Says which config file it
 * bundles before building, and throws (naming the field) when the config cannot be deployed.
 */
export function buildSwitchyardApp(app: App, options: Partial<SwitchyardAppOptions> = {}): SwitchyardStack {
  const { env, cwd, log } = { ...DEFAULTS, ...options };
  const { config, configFile, embedded } = stackConfig(app, { env, cwd });
  const stackName = stackNameFor(config.aws.stage);
  log(
    `switchyard: stack ${stackName} bundles config ${configFile}${embedded ? ' (the embedded default)' : ''}`,
  );
  return new SwitchyardStack(app, stackName, {
    config,
    configFile,
    env: { account: env.CDK_DEFAULT_ACCOUNT, region: env.CDK_DEFAULT_REGION },
  });
}
