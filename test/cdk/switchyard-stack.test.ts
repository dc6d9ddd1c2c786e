import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { embeddedConfig } from '../../lambda/local/config-file.js';
import { SwitchyardStack } from '../../lib/switchyard-stack.js';
import { writeTempConfig } from '../helpers/cli-harness.js';

const config = {
  ...embeddedConfig(),
  providers: {
    ...embeddedConfig().providers,
    openai: {
      type: 'openai' as const,
      baseURL: 'https://api.openai.com/v1',
      apiKeySecret: '/switchyard/keys/openai',
    },
    openrouter: {
      type: 'openai' as const,
      baseURL: 'https://openrouter.ai/api/v1',
      apiKeySecret: 'switchyard/openrouter',
    },
  },
  schedules: {
    'nightly-digest': {
      expression: 'cron(0 3 * * ? *)',
      pipeline: 'comment-filter',
      jobs: [{ id: 'acct-1', request: { messages: [{ role: 'user' as const, content: 'summarise' }] } }],
      spreadSeconds: 60,
      deliver: { url: 'https://hooks.example.com/digest', secretName: '/switchyard/webhooks/digest' },
    },
    hourly: {
      expression: 'rate(1 hour)',
      pipeline: 'keyword-expand',
      jobs: [{ id: 'k', request: { messages: [{ role: 'user' as const, content: 'expand' }] } }],
    },
  },
  jobs: { maxReceiveCount: 4, retentionDays: 7 },
};

function synth(props: Partial<ConstructorParameters<typeof SwitchyardStack>[2]> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const stack = new SwitchyardStack(app, 'Switchyard', {
    config,
    configFile: writeTempConfig(config),
    env: { account: '123456789012', region: 'us-east-1' },
    ...props,
  });
  return { app, stack };
}

let template: Template;
beforeAll(() => {
  template = Template.fromStack(synth().stack);
});

type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

/** Every IAM statement of the API function's role. */
function apiRoleStatements(): Statement[] {
  return roleStatements('ApiFunctionRole');
}

/** Every IAM statement of the role whose policy's logical id starts with `prefix`. */
function roleStatements(prefix: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  const statements = Object.entries(policies)
    .filter(([id]) => id.startsWith(prefix))
    .flatMap(
      ([, p]) =>
        (p as { Properties: { PolicyDocument: { Statement: never[] } } }).Properties.PolicyDocument.Statement,
    );
  expect(statements.length).toBeGreaterThan(0);
  return statements;
}

describe('Switchyard stack', () => {
  it('keeps breaker state in an on-demand table with TTL and point-in-time recovery, retained on delete', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: Match.anyValue(), Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('creates one SSM chain parameter per configured pipeline, initialised from the config', () => {
    const pipelines = Object.entries(config.pipelines);
    template.resourceCountIs('AWS::SSM::Parameter', pipelines.length);
    for (const [name, p] of pipelines) {
      template.hasResourceProperties('AWS::SSM::Parameter', {
        Name: `/switchyard/chains/${name}`,
        Value: p.chain,
        Type: 'String',
      });
    }
  });

  it('runs the API on Node.js 22, arm64, behind a REST API that streams the Lambda response', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: Match.objectLike({ SWITCHYARD_STORE: 'dynamodb', SWITCHYARD_SSM_PREFIX: '/switchyard' }),
      },
    });
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'ANY',
      Integration: Match.objectLike({
        Type: 'AWS_PROXY',
        ResponseTransferMode: 'STREAM',
        TimeoutInMillis: 29_000,
      }),
    });
  });

  it('gives the API role no wildcard action', () => {
    for (const s of apiRoleStatements()) {
      for (const action of [s.Action].flat()) expect(action).not.toContain('*');
    }
  });

  it('lets the API role read only the chain parameters, the caller keys and the named provider keys', () => {
    const ssm = apiRoleStatements().filter((s) => [s.Action].flat().some((a) => a.startsWith('ssm:')));
    const resources = JSON.stringify(ssm.map((s) => s.Resource));
    expect(resources).toContain('parameter/switchyard/chains');
    expect(resources).toContain('parameter/switchyard/chains/*');
    expect(resources).toContain('parameter/switchyard/caller-keys');
    expect(resources).toContain('parameter/switchyard/keys/openai');
    expect(resources).not.toMatch(/parameter\/\*"/);
    const secrets = apiRoleStatements().filter((s) =>
      [s.Action].flat().includes('secretsmanager:GetSecretValue'),
    );
    expect(JSON.stringify(secrets.map((s) => s.Resource))).toContain('secret:switchyard/openrouter-??????');
  });

  it('lets the API role read and write only the breaker table, and create jobs', () => {
    const dynamo = apiRoleStatements().filter((s) =>
      [s.Action].flat().some((a) => a.startsWith('dynamodb:')),
    );
    expect(dynamo).toHaveLength(2);
    const breaker = dynamo.find((s) => JSON.stringify(s.Resource).includes('BreakerTable'));
    expect([breaker?.Action].flat().sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const jobs = dynamo.find((s) => JSON.stringify(s.Resource).includes('JobsTable'));
    expect([jobs?.Action].flat().sort()).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    const sqs = apiRoleStatements().filter((s) => [s.Action].flat().some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap((s) => [s.Action].flat())).toEqual(['sqs:SendMessage']);
  });

  it('alarms on breaker openings and on the exhausted-request rate, and has a dashboard', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'BreakerOpenings',
      Namespace: 'Switchyard',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({ Expression: Match.stringLikeRegexp('exhausted') })]),
    });
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('never logs request bodies at the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ DataTraceEnabled: false })]),
    });
  });

  it('passes cdk-nag (AwsSolutions) with every exception acknowledged in code', () => {
    const { app } = synth();
    expect(() => app.synth()).not.toThrow();
  });

  it('fires one EventBridge rule per schedule at the scheduler with the schedule name and time', () => {
    template.resourceCountIs('AWS::Events::Rule', 2);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(0 3 * * ? *)',
      Targets: [
        Match.objectLike({
          InputTransformer: Match.objectLike({ InputTemplate: Match.stringLikeRegexp('nightly-digest') }),
        }),
      ],
    });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 hour)' });
  });

  it('queues jobs with a dead-letter queue after maxReceiveCount, which allows only the job queue to redrive', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'Switchyard-jobs',
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 4 },
      VisibilityTimeout: 720,
      SqsManagedSseEnabled: true,
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'Switchyard-jobs-dlq',
      RedriveAllowPolicy: { redrivePermission: 'byQueue', sourceQueueArns: [Match.anyValue()] },
      MessageRetentionPeriod: 7 * 86_400,
    });
  });

  it('runs the worker on the queue with partial batch failures', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 5,
    });
  });

  it('keeps jobs in a table with TTL', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'jobId', KeyType: 'HASH' }],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('alarms when jobs wait in the dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 1,
    });
  });

  it('gives the scheduler and the worker only what they use', () => {
    const scheduler = roleStatements('ScheduledJobsSchedulerRole').flatMap((s) => [s.Action].flat());
    expect(scheduler.sort()).toEqual(
      [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'sqs:SendMessage',
      ].sort(),
    );
    const worker = roleStatements('ScheduledJobsWorkerRole');
    const actions = worker.flatMap((s) => [s.Action].flat());
    for (const action of actions) expect(action).not.toContain('*');
    expect(actions).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'dynamodb:Query']),
    );
    expect(actions).not.toContain('sqs:SendMessage');
    const secrets = worker.filter((s) => [s.Action].flat().includes('ssm:GetParameter'));
    expect(JSON.stringify(secrets.map((s) => s.Resource))).toContain('parameter/switchyard/webhooks/digest');
  });

  it('fails the synth on a finding nobody acknowledged (the check is live)', () => {
    const { app, stack } = synth();
    new Role(stack, 'Careless', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }).addToPolicy(
      new PolicyStatement({ actions: ['s3:*'], resources: ['*'] }),
    );
    expect(() => app.synth()).toThrow(/AwsSolutions-IAM5/);
  });

  it('lets the routers invoke exactly the Bedrock models of the config', () => {
    for (const prefix of ['ApiFunctionRole', 'ScheduledJobsWorkerRole']) {
      const bedrock = roleStatements(prefix).filter((s) =>
        [s.Action].flat().some((a) => a.startsWith('bedrock:')),
      );
      expect(bedrock).toHaveLength(1);
      expect([bedrock[0]?.Action].flat().sort()).toEqual([
        'bedrock:InvokeModel',
        'bedrock:InvokeModelWithResponseStream',
      ]);
      const resources = JSON.stringify(bedrock[0]?.Resource);
      for (const model of [
        'meta.llama3-3-70b-instruct-v1:0',
        'anthropic.claude-3-5-haiku-20241022-v1:0',
        'amazon.nova-lite-v1:0',
      ]) {
        expect(resources).toContain(`:bedrock:us-east-1::foundation-model/${model}`);
      }
      expect(resources).not.toContain('foundation-model/*');
    }
  });

  it('refuses a provider whose key exists only in a local environment variable', () => {
    const local = {
      ...config,
      providers: {
        ...config.providers,
        together: {
          type: 'openai' as const,
          baseURL: 'https://api.together.xyz/v1',
          apiKeyEnv: 'TOGETHER_API_KEY',
        },
      },
    };
    expect(() => synth({ config: local, configFile: writeTempConfig(local) })).toThrow(
      /providers\.together: apiKeyEnv .* only works locally/,
    );
  });

  it('refuses two pipelines whose names would share a construct id, naming both', () => {
    const clash = { ...config, pipelines: { 'a-b': { chain: 'gpt-mini' }, a_b: { chain: 'gpt-mini' } } };
    expect(() => synth({ config: clash, configFile: writeTempConfig(clash) })).toThrow(
      /pipelines 'a-b' and 'a_b' would share the construct id 'AB'/,
    );
  });

  it('refuses a pipeline deadline that does not fit the integration timeout', () => {
    const tooLong = { ...config, pipelines: { slow: { chain: 'gpt-mini', deadlineMs: 60_000 } } };
    expect(() => synth({ config: tooLong, configFile: writeTempConfig(tooLong) })).toThrow(
      /deadlineMs 60000 does not fit/,
    );
  });
});
