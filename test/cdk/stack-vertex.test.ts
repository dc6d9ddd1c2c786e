import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, arnText, roleStatements, STACK_CONFIG, synthStack } from './stack-fixture.js';

const ROUTER_ROLES = ['ApiFunctionRole', 'ScheduledJobsWorkerRole'];

/** Two Vertex providers: one key in SSM, one in Secrets Manager, each with a Gemini model. */
const WITH_VERTEX = {
  ...STACK_CONFIG,
  providers: {
    ...STACK_CONFIG.providers,
    vertex: {
      type: 'vertex' as const,
      project: 'acme-prod',
      location: 'us-central1',
      apiKeySecret: '/switchyard/keys/vertex',
    },
    'vertex-eu': {
      type: 'vertex' as const,
      project: 'acme-prod',
      location: 'europe-west4',
      apiKeySecret: 'switchyard/vertex-eu',
    },
  },
  models: {
    ...STACK_CONFIG.models,
    'gemini-vertex': {
      provider: 'vertex',
      model: 'google/gemini-2.0-flash-001',
      routes: [{ provider: 'vertex-eu' }],
    },
  },
};

let template: Template;
beforeAll(() => {
  template = synthStack(WITH_VERTEX).template;
});

describe('Switchyard stack: Vertex AI providers', () => {
  it.each(ROUTER_ROLES)(
    'lets %s read each Vertex service-account key by its exact name, and only read',
    (role) => {
      const statements = roleStatements(template, role);
      const ssm = statements.find((s) => s.Sid === 'ReadProviderKeysInSsm');
      expect(ssm && actionsOf(ssm).sort()).toEqual(['ssm:GetParameter', 'ssm:GetParameters']);
      const parameter = (name: string) =>
        `arn:<AWS::Partition>:ssm:us-east-1:123456789012:parameter/switchyard/keys/${name}`;
      // The embedded config's keys (google, together), the fixture's (openai), and the Vertex one.
      expect([ssm?.Resource].flat().map(arnText).sort()).toEqual(
        ['google', 'openai', 'together', 'vertex'].map(parameter),
      );
      const secrets = statements.find((s) => s.Sid === 'ReadProviderKeysInSecretsManager');
      expect(secrets && actionsOf(secrets)).toEqual(['secretsmanager:GetSecretValue']);
      expect([secrets?.Resource].flat().map(arnText).sort()).toEqual([
        'arn:<AWS::Partition>:secretsmanager:us-east-1:123456789012:secret:switchyard/openrouter-??????',
        'arn:<AWS::Partition>:secretsmanager:us-east-1:123456789012:secret:switchyard/vertex-eu-??????',
      ]);
    },
  );

  it('grants nothing else for Vertex: Google is reached with the key, not with AWS permissions', () => {
    const plain = roleStatements(synthStack().template, 'ApiFunctionRole');
    const withVertex = roleStatements(template, 'ApiFunctionRole');
    expect(withVertex.map((s) => s.Sid).sort()).toEqual(plain.map((s) => s.Sid).sort());
    expect(JSON.stringify(withVertex)).not.toContain('gemini');
  });

  it('never puts a service-account key into the function environment', () => {
    const text = JSON.stringify(template.findResources('AWS::Lambda::Function'));
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain('private_key');
  });

  it('refuses to deploy a Vertex provider whose key exists only on a laptop', () => {
    const local = {
      ...WITH_VERTEX,
      providers: {
        ...WITH_VERTEX.providers,
        'vertex-eu': {
          type: 'vertex' as const,
          project: 'acme-prod',
          location: 'europe-west4',
          credentialsFile: './sa.json',
        },
      },
    };
    expect(() => synthStack(local)).toThrow(
      /providers\.vertex-eu: apiKeyEnv and credentialsFile only work locally; add apiKeySecret/,
    );
  });
});
