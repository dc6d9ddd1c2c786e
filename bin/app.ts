import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { stackConfig } from '../lib/stack-config.js';
import { SwitchyardStack } from '../lib/switchyard-stack.js';

const app = new App();
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
new SwitchyardStack(app, 'Switchyard', {
  ...stackConfig(app),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
