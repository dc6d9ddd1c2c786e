import type { Template } from 'aws-cdk-lib/assertions';
import { Match } from 'aws-cdk-lib/assertions';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, arnText, roleStatements, STACK_CONFIG, synthStack, withAws } from './stack-fixture.js';

let template: Template;
beforeAll(() => {
  ({ template } = synthStack());
});

describe('Switchyard stack', () => {
  it('keeps breaker state in an on-demand table with TTL, point-in-time recovery and deletion protection, retained on delete', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        KeySchema: Match.arrayWith([Match.objectLike({ KeyType: 'RANGE' })]),
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: Match.anyValue(), Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('keeps jobs in a table with TTL and deletion protection', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'jobId', KeyType: 'HASH' }],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      DeletionProtectionEnabled: true,
    });
    // Breakers, jobs, caller keys.
    template.resourceCountIs('AWS::DynamoDB::Table', 3);
  });

  it('runs the API on Node.js 24, arm64, behind a REST API that streams the Lambda response', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Environment: {
        Variables: Match.objectLike({ SWITCHYARD_STORE: 'dynamodb', SWITCHYARD_SSM_PREFIX: '/switchyard' }),
      },
    });
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'ANY',
      Integration: Match.objectLike({ Type: 'AWS_PROXY', ResponseTransferMode: 'STREAM' }),
    });
  });

  it('runs every function (API, worker, scheduler) on nodejs24.x, the Node the tests run on', () => {
    const runtimes = Object.values(template.findResources('AWS::Lambda::Function')).map(
      (fn) => fn.Properties.Runtime,
    );
    expect(runtimes).toEqual(['nodejs24.x', 'nodejs24.x', 'nodejs24.x']);
    expect(Number(process.versions.node.split('.')[0])).toBe(24);
  });

  it('runs no function with --enable-source-maps: the bundles ship without a map (bench/cold-start)', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    expect(functions.length).toBe(3);
    for (const fn of functions) {
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
    }
  });

  it('routes the root path to the app too: no MOCK integration anywhere', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    expect(methods).toHaveLength(2); // ANY / and ANY /{proxy+}
    for (const method of methods) {
      expect(method.Properties.Integration.Type).toBe('AWS_PROXY');
      expect(method.Properties.Integration.ResponseTransferMode).toBe('STREAM');
    }
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'ANY',
      ResourceId: { 'Fn::GetAtt': [Match.anyValue(), 'RootResourceId'] },
      Integration: Match.objectLike({ Type: 'AWS_PROXY' }),
    });
  });

  it('gives the API role no wildcard action', () => {
    for (const s of roleStatements(template, 'ApiFunctionRole')) {
      for (const action of actionsOf(s)) expect(action).not.toContain('*');
    }
  });

  it('lets the API role read and write only the breaker table, read single caller keys, and create jobs', () => {
    const statements = roleStatements(template, 'ApiFunctionRole');
    const dynamo = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo).toHaveLength(3);
    const keys = dynamo.find((s) => JSON.stringify(s.Resource).includes('CallerKeys'));
    expect(keys && actionsOf(keys)).toEqual(['dynamodb:GetItem']);
    const breaker = dynamo.find((s) => JSON.stringify(s.Resource).includes('BreakerTable'));
    expect(breaker && actionsOf(breaker).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    const jobs = dynamo.find((s) => JSON.stringify(s.Resource).includes('JobsTable'));
    expect(jobs && actionsOf(jobs).sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap(actionsOf)).toEqual(['sqs:SendMessage']);
  });

  it('lets the routers read provider keys by name: SSM SecureStrings singly or batched, secrets with their suffix', () => {
    for (const prefix of ['ApiFunctionRole', 'ScheduledJobsWorkerRole']) {
      const statements = roleStatements(template, prefix);
      const keys = statements.find((s) => s.Sid === 'ReadProviderKeysInSsm');
      expect(keys && actionsOf(keys).sort()).toEqual(['ssm:GetParameter', 'ssm:GetParameters']);
      expect(arnText(keys?.Resource)).toContain('parameter/switchyard/keys/openai');
      const secrets = statements.find((s) => s.Sid === 'ReadProviderKeysInSecretsManager');
      expect(secrets && actionsOf(secrets)).toEqual(['secretsmanager:GetSecretValue']);
      expect(arnText(secrets?.Resource)).toContain('secret:switchyard/openrouter-??????');
    }
  });

  it('never logs request bodies at the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([Match.objectLike({ DataTraceEnabled: false })]),
    });
  });

  it('passes cdk-nag (AwsSolutions) with every exception acknowledged in code', () => {
    const { app } = synthStack(STACK_CONFIG, 'Switchyard', true);
    expect(() => app.synth()).not.toThrow();
  });

  it('passes cdk-nag with an alarm e-mail, capacity, long streams and no schedules too', () => {
    const config = withAws(
      {
        ssmPrefix: '/team/gateway',
        alarmEmail: 'oncall@example.com',
        capacity: { apiReservedConcurrency: 50, workerMaxConcurrency: 5 },
        streaming: { integrationTimeoutSeconds: 300 },
      },
      { ...STACK_CONFIG, schedules: {} },
    );
    const { app } = synthStack(config, 'Switchyard', true);
    expect(() => app.synth()).not.toThrow();
  });

  it('fails the synth on a finding nobody acknowledged (the check is live)', () => {
    const { app, stack } = synthStack(STACK_CONFIG, 'Switchyard', true);
    new Role(stack, 'Careless', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }).addToPolicy(
      new PolicyStatement({ actions: ['s3:*'], resources: ['*'] }),
    );
    expect(() => app.synth()).toThrow(/AwsSolutions-IAM5/);
  });

  it('refuses a provider whose key exists only in a local environment variable', () => {
    const local = {
      ...STACK_CONFIG,
      providers: {
        ...STACK_CONFIG.providers,
        together: {
          type: 'openai' as const,
          baseURL: 'https://api.together.xyz/v1',
          apiKeyEnv: 'TOGETHER_API_KEY',
        },
      },
    };
    expect(() => synthStack(local)).toThrow(/providers\.together: apiKeyEnv .* only works locally/);
  });
});
