import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { SwitchyardConfig } from '../../lambda/config/switchyard-config.js';
import { isKeyedProvider } from '../../lambda/families/capabilities.js';
import { bedrockResources } from './bedrock-resources.js';
import type { BundledFunction } from './bundled-function.js';

export interface RoutingAccess {
  ssmPrefix: string;
  breakerTable: ITable;
  /** The deployed config: which provider keys and which Bedrock models the router uses. */
  config: SwitchyardConfig;
}

/** `apiKeySecret` names of the config's keyed providers (all but Bedrock: API keys, Vertex service-account keys). */
export function providerKeySecrets(config: SwitchyardConfig): string[] {
  return Object.values(config.providers).flatMap((p) =>
    isKeyedProvider(p) && p.apiKeySecret ? [p.apiKeySecret] : [],
  );
}

/**
 * Reading everything under the SSM prefix: one recursive `GetParametersByPath` on the prefix
 * serves the chain overrides (`<prefix>/chains/*`), the caller keys and the provider keys kept
 * there, and `GetParameter(s)` reads single names. SecureStrings under the prefix are encrypted
 * with the account's `aws/ssm` key, whose key policy already lets any principal of the account
 * decrypt through SSM, so no `kms:` grant is needed.
 */
export function grantPrefixRead(fn: BundledFunction, ssmPrefix: string): void {
  const prefix = fn.parameterArn(ssmPrefix);
  const below = fn.parameterArn(`${ssmPrefix.replace(/\/+$/, '')}/*`);
  fn.allow(
    'ReadParametersUnderPrefix',
    ['ssm:GetParametersByPath', 'ssm:GetParameter', 'ssm:GetParameters'],
    [prefix, below],
  );
  fn.acknowledgeWildcard(
    below,
    'the parameters under the Switchyard prefix: operator chain overrides, caller keys, provider keys',
  );
}

/**
 * What any function that runs the router needs: the parameters under its prefix, the provider keys
 * named in the config, the Bedrock models the config calls, and the breaker table — each by name,
 * no more.
 */
export function grantRouting(fn: BundledFunction, access: RoutingAccess): void {
  grantPrefixRead(fn, access.ssmPrefix);
  fn.allowSecrets('ReadProviderKeys', providerKeySecrets(access.config));
  fn.allow(
    'BreakerState',
    // BatchGetItem: the account routes' cooling (docs/design-notes.md#account-route-items).
    [
      'dynamodb:Query',
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:UpdateItem',
      'dynamodb:PutItem',
    ],
    [access.breakerTable.tableArn],
  );
  const bedrock = bedrockResources(fn, access.config);
  const invoke = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];
  fn.allow('InvokeBedrockModels', invoke, bedrock.direct);
  if (bedrock.throughProfiles.length > 0) {
    fn.allow('InvokeBedrockThroughProfiles', invoke, bedrock.throughProfiles, {
      // The foundation models in other regions are reachable only through our own profiles.
      ArnLike: { 'bedrock:InferenceProfileArn': bedrock.profiles },
    });
  }
  for (const arn of bedrock.throughProfiles.filter((a) => a.includes('*'))) {
    fn.acknowledgeWildcard(
      arn,
      'the regions of the geography an inference profile may route this one foundation model to',
    );
  }
}
