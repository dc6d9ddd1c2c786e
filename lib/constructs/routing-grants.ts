import { Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { chainsPath } from '../../lambda/aws/ssm-chain-parameters.js';
import type { SwitchyardConfig } from '../../lambda/core/catalog/config-schema.js';
import type { BundledFunction } from './bundled-function.js';

export interface RoutingAccess {
  ssmPrefix: string;
  breakerTable: ITable;
  /** The deployed config: which provider keys and which Bedrock models the router uses. */
  config: SwitchyardConfig;
}

/** `apiKeySecret` names of the config's OpenAI-compatible providers. */
export function providerKeySecrets(config: SwitchyardConfig): string[] {
  return Object.values(config.providers).flatMap((p) =>
    p.type === 'openai' && p.apiKeySecret ? [p.apiKeySecret] : [],
  );
}

/** Cross-region inference profiles (`us.`, `eu.`, `apac.`, `global.` + a model id). */
const INFERENCE_PROFILE = /^(us|eu|apac|global)\.(.+)$/;

/**
 * The Bedrock resources the config's models call: a foundation model in its provider's region,
 * or an inference profile plus the foundation model it routes to in whichever region it picks.
 */
function bedrockResources(stack: Stack, config: SwitchyardConfig): { exact: string[]; anyRegion: string[] } {
  const exact = new Set<string>();
  const anyRegion = new Set<string>();
  for (const model of Object.values(config.models)) {
    const provider = config.providers[model.provider];
    if (provider?.type !== 'bedrock') continue;
    const profile = INFERENCE_PROFILE.exec(model.model);
    if (profile) {
      exact.add(
        `arn:${stack.partition}:bedrock:${provider.region}:${stack.account}:inference-profile/${model.model}`,
      );
      anyRegion.add(`arn:${stack.partition}:bedrock:*::foundation-model/${profile[2]}`);
    } else {
      exact.add(`arn:${stack.partition}:bedrock:${provider.region}::foundation-model/${model.model}`);
    }
  }
  return { exact: [...exact], anyRegion: [...anyRegion] };
}

/**
 * What any function that runs the router needs: its chains from SSM, the provider keys named in
 * the config, the Bedrock models the config calls, and the breaker table — each by name, no more.
 */
export function grantRouting(fn: BundledFunction, access: RoutingAccess): void {
  const chains = chainsPath(access.ssmPrefix);
  const eachChain = fn.parameterArn(`${chains}/*`);
  fn.allow(
    'ReadChains',
    ['ssm:GetParametersByPath', 'ssm:GetParameter'],
    [fn.parameterArn(chains), eachChain],
  );
  fn.acknowledgeWildcard(eachChain, 'the chain parameters, one per pipeline, under <prefix>/chains/');
  fn.allowSecrets('ReadProviderKeys', providerKeySecrets(access.config));
  fn.allow(
    'BreakerState',
    ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
    [access.breakerTable.tableArn],
  );
  const bedrock = bedrockResources(Stack.of(fn), access.config);
  const invoke = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];
  fn.allow('InvokeBedrockModels', invoke, [...bedrock.exact, ...bedrock.anyRegion]);
  for (const arn of bedrock.anyRegion) {
    fn.acknowledgeWildcard(arn, 'the regions an inference profile may route this one foundation model to');
  }
}
