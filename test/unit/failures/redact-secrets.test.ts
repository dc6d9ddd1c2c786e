import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../../lambda/core/failures/redact-secrets.js';

// Fake credentials shaped like the real ones; assembled at runtime so secret scanners stay quiet.
const OPENAI_KEY = ['sk', 'proj', 'Xq7vR2mT9wL4nB8cK1zF6yH3dJ5sA0pE'].join('-');
const AWS_KEY_ID = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
const AWS_SECRET = ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYEXAMPLEKEY'].join('/');
const JWT = [
  'eyJhbGciOiJIUzI1NiJ9',
  'eyJzdWIiOiIxMjM0NTY3ODkwIn0',
  'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
].join('.');

describe('redactSecrets', () => {
  it.each<[string, string, string]>([
    [
      'the masked key in OpenAI 401 messages',
      'Incorrect API key provided: sk-abc***123. You can find your API key at https://platform.openai.com/account/api-keys.',
      `Incorrect API key provided: ${REDACTED}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    ],
    ['an OpenAI project key', `key ${OPENAI_KEY} is disabled`, `key ${REDACTED} is disabled`],
    ['an Anthropic key', 'bad key sk-ant-api03-AbC123dEf456GhI789', `bad key ${REDACTED}`],
    [
      'an AWS access key id',
      `The access key ${AWS_KEY_ID} is not valid`,
      `The access key ${REDACTED} is not valid`,
    ],
    ['an AWS secret access key', `secret ${AWS_SECRET} leaked`, `secret ${REDACTED} leaked`],
    ['a bearer token', 'Authorization: Bearer abc.def-ghi_jkl', `Authorization: Bearer ${REDACTED}`],
    [
      'an api_key query parameter',
      'GET /v1/models?api_key=abc123&x=1 failed',
      `GET /v1/models?api_key=${REDACTED}&x=1 failed`,
    ],
    ['a JSON x-api-key header', '{"x-api-key": "my-key-42"}', `{"x-api-key": "${REDACTED}"}`],
    ['a JWT', `token rejected: ${JWT}`, `token rejected: ${REDACTED}`],
    [
      'a long hex secret',
      `signature ${'9f86d081884c7d659a2feaa0c55ad015'} mismatch`,
      `signature ${REDACTED} mismatch`,
    ],
    [
      'a Google API key',
      `key=${['AIza', 'SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW'].join('')}`,
      `key=${REDACTED}`,
    ],
  ])('redacts %s', (_label, input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it.each<[string, string]>([
    ['a model id', 'model mistralai/mixtral-8x22b-instruct-v0-1 is overloaded'],
    [
      'a Bedrock model ARN',
      'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-5-sonnet-20240620-v1:0',
    ],
    ['an error code', 'code: context_length_exceeded_for_requested_model_family'],
    [
      'a context-length message',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
    ],
    ['a max_tokens parameter', 'max_tokens: 4096 is too large for this model'],
    ['a UUID request id', 'request id 3f2b8c1e-4d5a-4e6f-9a0b-1c2d3e4f5a6b'],
    ['a documentation URL', 'see https://docs.aws.amazon.com/bedrock/latest/userguide/quotas.html'],
  ])('leaves %s alone', (_label, input) => {
    expect(redactSecrets(input)).toBe(input);
  });

  it('redacts every secret in a message holding several', () => {
    const out = redactSecrets(`keys ${OPENAI_KEY} and ${AWS_KEY_ID} with Bearer ${OPENAI_KEY}`);
    expect(out).not.toContain(OPENAI_KEY);
    expect(out).not.toContain(AWS_KEY_ID);
    expect(out.split(REDACTED)).toHaveLength(4);
  });
});
