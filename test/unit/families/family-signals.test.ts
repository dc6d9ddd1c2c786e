import { describe, expect, it } from 'vitest';
import { classifyError } from '../../../lambda/core/failures/classify-error.js';
import { GENERIC_SIGNALS } from '../../../lambda/core/failures/failure-signals.js';
import { familyOf } from '../../../lambda/families/registry.js';

const NOW = 0;
const named = (name: string, fields: object = {}) =>
  Object.assign(new Error('upstream said no'), { name, ...fields });
const coded = (status: number | undefined, code: string) =>
  Object.assign(new Error('upstream said no'), { status, error: { code } });
const classOf = (error: unknown, type?: string) =>
  classifyError(error, NOW, { signals: type === undefined ? GENERIC_SIGNALS : familyOf(type).signals })
    .failureClass;

describe('each family classifies by its own signal rows', () => {
  it('reads a throttling exception as a rate limit on a bedrock route only', () => {
    expect(classOf(named('ThrottlingException'), 'bedrock')).toBe('rate_limited');
    expect(classOf(named('ThrottlingException'), 'openai')).toBe('unavailable');
    expect(classOf(named('ThrottlingException'))).toBe('unavailable');
  });

  it('reads a billing 429 as a credentials stop where the family says insufficient_quota is billing', () => {
    expect(classOf(coded(429, 'insufficient_quota'), 'openai')).toBe('upstream_auth');
    expect(classOf(coded(429, 'insufficient_quota'), 'vertex')).toBe('upstream_auth');
    expect(classOf(coded(429, 'insufficient_quota'), 'bedrock')).toBe('rate_limited');
    expect(classOf(coded(429, 'insufficient_quota'))).toBe('rate_limited');
  });

  it('reads an envelope error type without a status by the anthropic rows', () => {
    expect(classOf(coded(undefined, 'authentication_error'), 'anthropic')).toBe('upstream_auth');
    expect(classOf(coded(undefined, 'authentication_error'), 'openai')).toBe('unavailable');
  });

  it('keeps the generic transport rows in every table', () => {
    for (const type of ['openai', 'bedrock', 'vertex', 'anthropic', undefined]) {
      expect(classOf(Object.assign(new Error('x'), { code: 'ECONNRESET' }), type)).toBe('network');
      expect(classOf(named('AbortError'), type)).toBe('cancelled');
    }
  });

  it('reads the shared transport connection error by name on the HTTP families and not on bedrock', () => {
    expect(classOf(named('APIConnectionError'), 'anthropic')).toBe('network');
    expect(classOf(named('APIConnectionError'), 'openai')).toBe('network');
    expect(classOf(named('APIConnectionError'), 'bedrock')).toBe('unavailable');
  });
});
