import type { App } from 'aws-cdk-lib';
import { configForRegion } from '../lambda/aws/regional-config.js';
import { regionPlacements } from './multi-region.js';
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
 * The CDK app's stacks: the config by the CLI's rules (`-c config=FILE`, `SWITCHYARD_CONFIG`,
 * `./switchyard.config.json`, the embedded default), the stack named after its stage
 * (`Switchyard`, `Switchyard-<stage>`), in the CLI's account and region. With `aws.regions`, one
 * stack of that name per region instead (CDK id `<name>-<region>`; docs/operations.md#a-second-region),
 * each on the config as its region runs it. Says which config file it bundles before building,
 * and throws (naming the field) when the config cannot be deployed. Returns the first stack.
 */
export function buildSwitchyardApp(app: App, options: Partial<SwitchyardAppOptions> = {}): SwitchyardStack {
  const { env, cwd, log } = { ...DEFAULTS, ...options };
  const { config, configFile, embedded } = stackConfig(app, { env, cwd });
  const stackName = stackNameFor(config.aws.stage);
  log(
    `switchyard: stack ${stackName} bundles config ${configFile}${embedded ? ' (the embedded default)' : ''}`,
  );
  const placements = regionPlacements(config, stackName);
  if (placements.length === 0) {
    return new SwitchyardStack(app, stackName, {
      config,
      configFile,
      env: { account: env.CDK_DEFAULT_ACCOUNT, region: env.CDK_DEFAULT_REGION },
    });
  }
  const stacks = placements.map(
    (placement) =>
      new SwitchyardStack(app, `${stackName}-${placement.region}`, {
        stackName,
        config: configForRegion(config, placement.region),
        configFile,
        placement,
        env: { account: env.CDK_DEFAULT_ACCOUNT, region: placement.region },
      }),
  );
  const [primary, ...others] = stacks as [SwitchyardStack, ...SwitchyardStack[]];
  // A replica of the global table exists once the primary's stack has created it.
  if (config.aws.breakerState === 'global')
    for (const stack of others) stack.addStackDependency(primary, "the global breaker table's replica");
  return primary;
}
