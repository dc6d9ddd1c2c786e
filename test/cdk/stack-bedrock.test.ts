import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { embeddedConfig } from '../../lambda/config/config-file.js';
import {
  INFERENCE_PROFILE_PREFIXES,
  PROFILE_DESTINATIONS,
  parseInferenceProfileId,
} from '../../lib/constructs/bedrock-resources.js';
import {
  actionsOf,
  arnText,
  roleStatements,
  STACK_CONFIG,
  type Statement,
  synthStack,
} from './stack-fixture.js';

const ROUTER_ROLES = ['ApiFunctionRole', 'ScheduledJobsWorkerRole'];
const PROFILES = [
  'us.anthropic.claude-3-5-haiku-20241022-v1:0',
  'us.meta.llama3-3-70b-instruct-v1:0',
  'us.amazon.nova-lite-v1:0',
];

/** One Bedrock model per profile prefix AWS uses today, plus a plain on-demand model. */
const EVERY_PREFIX = {
  ...STACK_CONFIG,
  providers: {
    ...STACK_CONFIG.providers,
    bedrockEu: { type: 'bedrock' as const, region: 'eu-west-1' },
    bedrockAp: { type: 'bedrock' as const, region: 'ap-southeast-2' },
  },
  models: {
    ...STACK_CONFIG.models,
    ...Object.fromEntries(
      INFERENCE_PROFILE_PREFIXES.map((prefix) => [
        `m-${prefix}`,
        { provider: 'bedrockEu', model: `${prefix}.vendor.model-${prefix}-v1:0` },
      ]),
    ),
    // A second route to the same model, in another region: its grant comes from the route.
    plain: { provider: 'bedrockEu', model: 'cohere.command-r-v1:0', routes: [{ provider: 'bedrockAp' }] },
  },
};

let template: Template;
let everyPrefix: Template;
beforeAll(() => {
  template = synthStack().template;
  everyPrefix = synthStack(EVERY_PREFIX).template;
});

const bedrockStatements = (t: Template, role: string): Statement[] =>
  roleStatements(t, role).filter((s) => actionsOf(s).some((a) => a.startsWith('bedrock:')));

describe('Switchyard stack: Bedrock through inference profiles', () => {
  it('ships a default config whose Bedrock models are inference-profile ids', () => {
    const config = embeddedConfig();
    const ids = Object.values(config.models)
      .filter((m) => config.providers[m.provider]?.type === 'bedrock')
      .map((m) => m.model)
      .sort();
    expect(ids).toEqual([...PROFILES].sort());
  });

  it.each(ROUTER_ROLES)('lets %s invoke each profile of the config, and only invoke', (role) => {
    const statements = bedrockStatements(template, role);
    expect(statements).toHaveLength(2);
    for (const s of statements) {
      expect(actionsOf(s).sort()).toEqual(['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream']);
    }
    const direct = arnText(statements.find((s) => s.Sid === 'InvokeBedrockModels')?.Resource);
    for (const profile of PROFILES) {
      expect(direct).toContain(`:bedrock:us-east-1:123456789012:inference-profile/${profile}`);
    }
    expect(direct).not.toContain('foundation-model');
  });

  it.each(ROUTER_ROLES)(
    'lets %s reach the foundation models behind the profiles in US regions only, only through those profiles',
    (role) => {
      const through = bedrockStatements(template, role).find((s) => s.Sid === 'InvokeBedrockThroughProfiles');
      const resources = [through?.Resource].flat().map(arnText);
      expect(resources.sort()).toEqual(
        PROFILES.map((p) => `arn:<AWS::Partition>:bedrock:us-*::foundation-model/${p.slice(3)}`).sort(),
      );
      const condition = through?.Condition?.ArnLike as Record<string, unknown>;
      expect([condition['bedrock:InferenceProfileArn']].flat().map(arnText).sort()).toEqual(
        PROFILES.map(
          (p) => `arn:<AWS::Partition>:bedrock:us-east-1:123456789012:inference-profile/${p}`,
        ).sort(),
      );
    },
  );

  it.each(INFERENCE_PROFILE_PREFIXES)('understands the %s. profile prefix', (prefix) => {
    const statements = bedrockStatements(everyPrefix, 'ApiFunctionRole');
    const direct = arnText(statements.find((s) => s.Sid === 'InvokeBedrockModels')?.Resource);
    expect(direct).toContain(
      `:bedrock:eu-west-1:123456789012:inference-profile/${prefix}.vendor.model-${prefix}-v1:0`,
    );
    const through = statements.find((s) => s.Sid === 'InvokeBedrockThroughProfiles')?.Resource;
    const grants = [through]
      .flat()
      .map(arnText)
      .filter((arn) => arn.endsWith(`/vendor.model-${prefix}-v1:0`));
    expect(grants).toContain(
      `arn:<AWS::Partition>:bedrock:${PROFILE_DESTINATIONS[prefix]}::foundation-model/vendor.model-${prefix}-v1:0`,
    );
    expect(grants).toHaveLength(prefix === 'global' ? 2 : 1);
    expect(direct).not.toContain(`foundation-model/${prefix}.`);
  });

  it.each<[string, string]>([
    ['us', 'us-*'],
    ['eu', 'eu-*'],
    ['apac', 'ap-*'],
    ['jp', 'ap-northeast-*'],
    ['au', 'ap-southeast-*'],
    ['ca', 'ca-*'],
    ['us-gov', 'us-gov-*'],
    ['global', '*'],
  ])('grants the model behind a %s. profile in regions %s', (prefix, regions) => {
    const through = bedrockStatements(everyPrefix, 'ApiFunctionRole').find(
      (s) => s.Sid === 'InvokeBedrockThroughProfiles',
    );
    expect([through?.Resource].flat().map(arnText)).toContain(
      `arn:<AWS::Partition>:bedrock:${regions}::foundation-model/vendor.model-${prefix}-v1:0`,
    );
  });

  it('grants a geography profile its model in no region outside the geography', () => {
    const through = bedrockStatements(everyPrefix, 'ApiFunctionRole').find(
      (s) => s.Sid === 'InvokeBedrockThroughProfiles',
    );
    const arns = [through?.Resource].flat().map(arnText);
    expect(arns.filter((arn) => arn.includes(':bedrock:*::'))).toEqual([
      'arn:<AWS::Partition>:bedrock:*::foundation-model/vendor.model-global-v1:0',
    ]);
  });

  it('also names the region-less model ARN for a global. profile', () => {
    const statements = bedrockStatements(everyPrefix, 'ApiFunctionRole');
    const through = arnText(statements.find((s) => s.Sid === 'InvokeBedrockThroughProfiles')?.Resource);
    expect(through).toContain('arn:<AWS::Partition>:bedrock:::foundation-model/vendor.model-global-v1:0');
    expect(through).not.toContain('bedrock:::foundation-model/vendor.model-us-v1:0');
  });

  it('grants a plain model id in its provider region only, never in any region', () => {
    const statements = bedrockStatements(everyPrefix, 'ApiFunctionRole');
    const direct = arnText(statements.find((s) => s.Sid === 'InvokeBedrockModels')?.Resource);
    expect(direct).toContain(':bedrock:eu-west-1::foundation-model/cohere.command-r-v1:0');
    const through = arnText(statements.find((s) => s.Sid === 'InvokeBedrockThroughProfiles')?.Resource);
    expect(through).not.toContain('cohere');
  });

  it('grants a model’s further Bedrock route in that route’s region', () => {
    const statements = bedrockStatements(everyPrefix, 'ApiFunctionRole');
    const direct = arnText(statements.find((s) => s.Sid === 'InvokeBedrockModels')?.Resource);
    expect(direct).toContain(':bedrock:ap-southeast-2::foundation-model/cohere.command-r-v1:0');
  });

  it.each([
    [
      'us.anthropic.claude-3-5-haiku-20241022-v1:0',
      { prefix: 'us', foundationModel: 'anthropic.claude-3-5-haiku-20241022-v1:0' },
    ],
    [
      'us-gov.meta.llama3-8b-instruct-v1:0',
      { prefix: 'us-gov', foundationModel: 'meta.llama3-8b-instruct-v1:0' },
    ],
    ['anthropic.claude-3-5-haiku-20241022-v1:0', undefined],
    ['usa.model-v1:0', undefined],
  ])('reads %s as %o', (id, expected) => {
    expect(parseInferenceProfileId(id)).toEqual(expected);
  });
});
