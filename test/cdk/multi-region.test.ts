import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { configForRegion } from '../../lambda/aws/regional-config.js';
import { parseConfig } from '../../lambda/config/switchyard-config.js';
import { buildSwitchyardApp } from '../../lib/switchyard-app.js';
import type { SwitchyardStack } from '../../lib/switchyard-stack.js';
import { writeTempConfig } from '../helpers/cli-harness.js';
import { arnText, roleStatements, STACK_CONFIG } from './stack-fixture.js';

const CERT = (region: string) => `arn:aws:acm:${region}:123456789012:certificate/0000-${region}`;
const DOMAIN = {
  hostedZoneId: 'Z0123456789ABCDEFGHIJ',
  zoneName: 'example.com',
  name: 'llm.example.com',
  certificates: { 'us-east-1': CERT('us-east-1'), 'eu-west-1': CERT('eu-west-1') },
};
const EU_LLAMA = 'eu.meta.llama3-3-70b-instruct-v1:0';

/** The app as `cdk synth` builds it from a config file with this `aws` section (bundling off). */
function synthApp(aws: Record<string, unknown>) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const path = writeTempConfig({ ...STACK_CONFIG, aws });
  buildSwitchyardApp(app, {
    env: { SWITCHYARD_CONFIG: path, CDK_DEFAULT_ACCOUNT: '123456789012' },
    cwd: '/',
    log: () => {},
  });
  const stacks = app.node.children.filter((c): c is SwitchyardStack => 'templateOptions' in c);
  const template = (region: string) => {
    const stack = stacks.find((s) => s.region === region);
    if (!stack) throw new Error(`no stack in ${region}`);
    return Template.fromStack(stack);
  };
  return { stacks, template };
}

describe('two regions, a custom domain, breaker state global', () => {
  const { stacks, template } = synthApp({
    regions: ['us-east-1', 'eu-west-1'],
    domain: DOMAIN,
    breakerState: 'global',
    regionalModels: { 'eu-west-1': { 'llama-br': EU_LLAMA } },
  });
  const us = template('us-east-1');
  const eu = template('eu-west-1');

  it('builds one stack per region under the same stack name, the replica region after the primary', () => {
    expect(stacks.map((s) => [s.node.id, s.stackName, s.region])).toEqual([
      ['Switchyard-us-east-1', 'Switchyard', 'us-east-1'],
      ['Switchyard-eu-west-1', 'Switchyard', 'eu-west-1'],
    ]);
    expect(stacks[1]?.dependencies.map((d) => d.node.id)).toEqual(['Switchyard-us-east-1']);
  });

  it('adds a latency record per region for the domain, answered only while its health check passes', () => {
    for (const [region, t] of [
      ['us-east-1', us],
      ['eu-west-1', eu],
    ] as const) {
      t.hasResourceProperties('AWS::Route53::RecordSet', {
        Name: 'llm.example.com.',
        Type: 'A',
        HostedZoneId: 'Z0123456789ABCDEFGHIJ',
        Region: region,
        SetIdentifier: region,
        HealthCheckId: Match.anyValue(),
        AliasTarget: Match.objectLike({ DNSName: Match.anyValue() }),
      });
      t.resourceCountIs('AWS::Route53::RecordSet', 1);
    }
  });

  it('checks each region’s own endpoint on /healthz over HTTPS', () => {
    us.hasResourceProperties('AWS::Route53::HealthCheck', {
      HealthCheckConfig: Match.objectLike({
        Type: 'HTTPS',
        Port: 443,
        ResourcePath: '/prod/healthz',
        RequestInterval: 10,
        FailureThreshold: 3,
        FullyQualifiedDomainName: Match.objectLike({
          'Fn::Join': ['', Match.arrayWith(['.execute-api.us-east-1.'])],
        }),
      }),
    });
    eu.resourceCountIs('AWS::Route53::HealthCheck', 1);
  });

  it('serves the domain in each region with that region’s certificate', () => {
    us.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'llm.example.com',
      RegionalCertificateArn: CERT('us-east-1'),
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    eu.hasResourceProperties('AWS::ApiGateway::DomainName', { RegionalCertificateArn: CERT('eu-west-1') });
    us.resourceCountIs('AWS::ApiGateway::BasePathMapping', 1);
  });

  it('creates the breaker table once, as a global table with a replica in the second region', () => {
    us.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    us.resourceCountIs('AWS::DynamoDB::Table', 2); // the jobs and caller-key tables stay regional
    us.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TableName: 'Switchyard-breakers',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      Replicas: Match.arrayWith([
        Match.objectLike({ Region: 'eu-west-1', DeletionProtectionEnabled: true }),
        Match.objectLike({ Region: 'us-east-1' }),
      ]),
    });
    eu.resourceCountIs('AWS::DynamoDB::GlobalTable', 0);
    eu.resourceCountIs('AWS::DynamoDB::Table', 2); // its own jobs and caller-key tables
  });

  it('points each region’s functions at the replica in its own region', () => {
    eu.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ SWITCHYARD_TABLE: 'Switchyard-breakers' }) },
    });
    const breaker = roleStatements(eu, 'ApiFunction').find((s) => s.Sid === 'BreakerState');
    expect(arnText(breaker?.Resource)).toContain(':dynamodb:eu-west-1:');
    expect(arnText(breaker?.Resource)).toContain('table/Switchyard-breakers');
  });

  it('grants each region its own Bedrock inference profile', () => {
    const euStatements = roleStatements(eu, 'ApiFunction').map((s) => arnText(s.Resource));
    expect(euStatements.join(' ')).toContain(`:bedrock:eu-west-1:`);
    expect(euStatements.join(' ')).toContain(`inference-profile/${EU_LLAMA}`);
    const usStatements = roleStatements(us, 'ApiFunction').map((s) => arnText(s.Resource));
    expect(usStatements.join(' ')).not.toContain(EU_LLAMA);
  });
});

describe('two regions with regional breaker state (the default)', () => {
  const { stacks, template } = synthApp({ regions: ['us-east-1', 'eu-west-1'], domain: DOMAIN });

  it('gives every region its own breaker table and no global table, with no ordering between them', () => {
    for (const region of ['us-east-1', 'eu-west-1']) {
      const t = template(region);
      t.resourceCountIs('AWS::DynamoDB::GlobalTable', 0);
      t.resourceCountIs('AWS::DynamoDB::Table', 3); // breakers, jobs, caller keys
      t.resourceCountIs('AWS::Route53::HealthCheck', 1);
    }
    expect(stacks[1]?.dependencies).toEqual([]);
  });
});

describe('region settings are checked, naming the field', () => {
  const parse = (aws: Record<string, unknown>) => () => parseConfig({ ...STACK_CONFIG, aws });

  it.each([
    [{ domain: DOMAIN }, 'aws.domain'],
    [{ regions: ['us-east-1'], breakerState: 'global' }, 'aws.breakerState'],
    [{ regions: ['us-east-1', 'us-east-1'] }, 'aws.regions'],
    [{ regions: ['us-east-1', 'ap-south-1'], domain: DOMAIN }, 'aws.domain.certificates.ap-south-1'],
    [
      { regions: ['us-east-1'], domain: { ...DOMAIN, certificates: { 'us-east-1': CERT('eu-west-1') } } },
      'aws.domain.certificates.us-east-1',
    ],
    [{ regions: ['us-east-1'], domain: { ...DOMAIN, name: 'llm.example.org' } }, 'aws.domain.name'],
    [
      { regions: ['us-east-1'], regionalModels: { 'eu-west-1': { 'llama-br': EU_LLAMA } } },
      'aws.regionalModels.eu-west-1',
    ],
  ])('refuses case %# naming %s', (aws, field) => {
    expect(parse(aws)).toThrow(new RegExp(field.replaceAll('.', '\\.')));
  });

  it('refuses a regional model id for a model the config does not have', () => {
    const config = parseConfig({
      ...STACK_CONFIG,
      aws: { regions: ['eu-west-1'], regionalModels: { 'eu-west-1': { 'no-such-model': EU_LLAMA } } },
    });
    expect(() => configForRegion(config, 'eu-west-1')).toThrow(
      /aws\.regionalModels\.eu-west-1\.no-such-model/,
    );
  });

  it('leaves the config alone outside aws.regions', () => {
    const config = parseConfig({ ...STACK_CONFIG, aws: { regions: ['eu-west-1'] } });
    expect(configForRegion(config, 'us-east-1')).toBe(config);
    expect(configForRegion(config, 'eu-west-1').providers.bedrock).toMatchObject({ region: 'eu-west-1' });
  });
});
