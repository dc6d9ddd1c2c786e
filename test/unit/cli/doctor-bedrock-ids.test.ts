import { describe, expect, it } from 'vitest';
import { checkBedrockModelIds } from '../../../lambda/cli/doctor-checks.js';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';

const configWith = (region: string, model: string) =>
  parseConfig({
    providers: { bedrock: { type: 'bedrock', region } },
    models: { m: { provider: 'bedrock', model } },
  });

describe('doctor: Bedrock model ids', () => {
  it.each([
    'us.anthropic.claude-3-5-haiku-20241022-v1:0',
    'us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0',
    'eu.meta.llama3-2-3b-instruct-v1:0',
    'apac.amazon.nova-lite-v1:0',
    'jp.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'au.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123',
  ])('accepts %s as an inference profile', (model) => {
    expect(checkBedrockModelIds(configWith('us-east-1', model))).toEqual([
      { status: 'ok', subject: 'bedrock models', text: '1 model, by inference profile' },
    ]);
  });

  it.each([
    ['us-east-1', 'meta.llama3-3-70b-instruct-v1:0', 'us.meta.llama3-3-70b-instruct-v1:0'],
    [
      'us-gov-west-1',
      'anthropic.claude-3-haiku-20240307-v1:0',
      'us-gov.anthropic.claude-3-haiku-20240307-v1:0',
    ],
    ['eu-west-1', 'anthropic.claude-3-haiku-20240307-v1:0', 'eu.anthropic.claude-3-haiku-20240307-v1:0'],
    ['ap-northeast-1', 'amazon.nova-lite-v1:0', 'apac.amazon.nova-lite-v1:0'],
    ['sa-east-1', 'amazon.nova-lite-v1:0', 'global.amazon.nova-lite-v1:0'],
  ])('warns in %s about the base id %s and suggests %s', (region, model, suggested) => {
    const [line, ...rest] = checkBedrockModelIds(configWith(region, model));
    expect(rest).toEqual([]);
    expect(line?.status).toBe('warn');
    expect(line?.text).toContain(`'${model}' is a base model id`);
    expect(line?.text).toContain(`inference profile '${suggested}'`);
  });

  it('has nothing to say about a config without Bedrock models', () => {
    const config = parseConfig({
      providers: { fake: { type: 'openai', baseURL: 'http://127.0.0.1:9/v1' } },
      models: { a: { provider: 'fake', model: 'x' } },
    });
    expect(checkBedrockModelIds(config)).toEqual([]);
  });
});
