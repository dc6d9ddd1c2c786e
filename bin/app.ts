import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildSwitchyardApp } from '../lib/switchyard-app.js';

const app = new App();
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
try {
  buildSwitchyardApp(app);
} catch (error) {
  // A config that cannot be deployed is the operator's to fix: its message, not a stack trace.
  process.stderr.write(`switchyard: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
