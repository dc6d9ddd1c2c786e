/**
 * The Lambda bundles exactly as `cdk synth` builds them: the stack is synthesised with bundling on
 * and each function's asset directory (bundle, source map if any, config) and environment are read
 * back from the cloud assembly.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { SwitchyardConfig } from '../../lambda/config/switchyard-config.js';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { BundledFunction } from '../../lib/constructs/bundled-function.js';
import type { LambdaBundleChoices } from '../../lib/lambda-bundle.js';
import { SwitchyardStack } from '../../lib/switchyard-stack.js';

/** One function's deployed code and the environment it runs with. */
export interface SynthesisedBundle {
  /** Handler file under lambda/handlers, e.g. `api.ts`. */
  handlerFile: string;
  /** The asset directory: what `cdk deploy` zips and uploads. */
  dir: string;
  /** The function's environment variables; CloudFormation references become placeholders. */
  environment: Record<string, string>;
}

const ENV = { account: '123456789012', region: 'us-east-1' };
const HANDLERS: Record<string, string> = {
  ApiFunctionHandler: 'api.ts',
  ScheduledJobsWorkerHandler: 'worker.ts',
  ScheduledJobsSchedulerHandler: 'scheduler.ts',
};

/** Every bundle of the real stack, with one schedule so the scheduler exists too. */
export function synthStackBundles(outdir: string, config: SwitchyardConfig): SynthesisedBundle[] {
  const withSchedule = parseConfig({
    ...config,
    schedules: {
      bench: {
        expression: 'rate(1 hour)',
        pipeline: Object.keys(config.pipelines)[0] ?? 'comment-filter',
        jobs: [{ id: 'j', request: { messages: [{ role: 'user', content: 'hi' }] } }],
      },
    },
  });
  const configFile = join(outdir, 'bench.config.json');
  writeFileSync(configFile, JSON.stringify(withSchedule));
  const app = newApp(join(outdir, 'stack'));
  new SwitchyardStack(app, 'ColdStartBench', { config: withSchedule, configFile, env: ENV });
  return bundlesOf(app, 'ColdStartBench');
}

/** The same handlers built by `BundledFunction` with other choices (source map, splitting). */
export function synthAlternativeBundles(
  outdir: string,
  configFile: string,
  choices: LambdaBundleChoices,
): SynthesisedBundle[] {
  const app = newApp(join(outdir, `alternative-${choices.sourceMap}-${choices.splitting}`));
  const stack = new Stack(app, 'ColdStartAlternative', { env: ENV });
  for (const [id, handlerFile] of Object.entries(HANDLERS)) {
    new BundledFunction(stack, id.replace(/Handler$/, ''), {
      handlerFile,
      configFile,
      timeoutSeconds: 30,
      environment: {},
      ...choices,
    });
  }
  return bundlesOf(app, 'ColdStartAlternative');
}

function newApp(outdir: string): App {
  return new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
}

interface FunctionResource {
  Type: string;
  Metadata?: Record<string, string>;
  Properties: { Environment?: { Variables?: Record<string, unknown> } };
}

function bundlesOf(app: App, stackName: string): SynthesisedBundle[] {
  const assembly = app.synth();
  const artifact = assembly.getStackByName(stackName);
  const resources = artifact.template.Resources as Record<string, FunctionResource>;
  const bundles: SynthesisedBundle[] = [];
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const handler = Object.entries(HANDLERS).find(([prefix]) =>
      logicalId.replace(/[A-F0-9]{8}$/, '').endsWith(prefix),
    );
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (!handler || !assetPath) continue;
    const variables = resource.Properties.Environment?.Variables ?? {};
    bundles.push({
      handlerFile: handler[1],
      dir: join(assembly.directory, assetPath),
      environment: Object.fromEntries(
        Object.entries(variables).map(([k, v]) => [k, typeof v === 'string' ? v : `placeholder-${k}`]),
      ),
    });
  }
  return bundles.sort((a, b) => a.handlerFile.localeCompare(b.handlerFile));
}
