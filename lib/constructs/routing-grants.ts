import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { chainsPath } from '../../lambda/aws/ssm-chain-parameters.js';
import type { BundledFunction } from './bundled-function.js';

export interface RoutingAccess {
  ssmPrefix: string;
  breakerTable: ITable;
  /** `apiKeySecret` names from the config. */
  providerKeySecrets: readonly string[];
}

/**
 * What any function that runs the router needs: its chains from SSM, the provider keys named in
 * the config, and the breaker table — each by name, no more.
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
  fn.allowSecrets('ReadProviderKeys', access.providerKeySecrets);
  fn.allow(
    'BreakerState',
    ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
    [access.breakerTable.tableArn],
  );
}
