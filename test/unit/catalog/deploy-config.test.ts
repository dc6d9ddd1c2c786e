import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';

const base = {
  providers: { fake: { type: 'openai', baseURL: 'https://api.example.com/v1' } },
  models: { a: { provider: 'fake', model: 'model-a' } },
};
const parse = (extra: Record<string, unknown>) => parseConfig({ ...base, ...extra });
const refusal = (extra: Record<string, unknown>) => {
  try {
    parse(extra);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('the config was accepted');
};

describe('config: aws.stage, aws.production, aws.deploy', () => {
  it('keeps the SSM prefix /switchyard and no stage when none is named', () => {
    const { aws } = parse({});
    expect(aws.stage).toBeUndefined();
    expect(aws.ssmPrefix).toBe('/switchyard');
    expect(aws.production).toBe(false);
    expect(aws.deploy).toBeUndefined();
  });

  it('derives the SSM prefix /switchyard-<stage> from a stage, unless the file names one', () => {
    expect(parse({ aws: { stage: 'staging' } }).aws.ssmPrefix).toBe('/switchyard-staging');
    expect(parse({ aws: { stage: 'staging', ssmPrefix: '/shared' } }).aws.ssmPrefix).toBe('/shared');
  });

  it.each([
    ['Staging', 'uppercase'],
    ['1st', 'a leading digit'],
    ['a--b', 'a double hyphen'],
    ['staging-', 'a trailing hyphen'],
    ['a'.repeat(21), '21 characters'],
  ])('refuses the stage %s (%s), naming aws.stage', (stage) => {
    expect(refusal({ aws: { stage } })).toMatch(/^aws\.stage: /);
  });

  it('accepts a 20-character stage', () => {
    expect(parse({ aws: { stage: 'a'.repeat(20) } }).aws.stage).toBe('a'.repeat(20));
  });

  it('fills canaryMinutes 10 and bounds canaryPercent to 1–99', () => {
    expect(parse({ aws: { deploy: { canaryPercent: 10 } } }).aws.deploy).toEqual({
      canaryPercent: 10,
      canaryMinutes: 10,
    });
    expect(parse({ aws: { deploy: { canaryPercent: 1 } } }).aws.deploy?.canaryPercent).toBe(1);
    expect(parse({ aws: { deploy: { canaryPercent: 99 } } }).aws.deploy?.canaryPercent).toBe(99);
    expect(refusal({ aws: { deploy: { canaryPercent: 0 } } })).toMatch(/^aws\.deploy\.canaryPercent: /);
    expect(refusal({ aws: { deploy: { canaryPercent: 100 } } })).toMatch(/^aws\.deploy\.canaryPercent: /);
  });
});

describe('config: cors', () => {
  it('allows no origin by default', () => {
    expect(parse({}).cors).toEqual({ allowOrigins: [], maxAgeSeconds: 600 });
  });

  it('accepts origins with a port, and * alone', () => {
    const origins = ['https://app.example.com', 'http://localhost:5173'];
    expect(parse({ cors: { allowOrigins: origins } }).cors.allowOrigins).toEqual(origins);
    expect(parse({ cors: { allowOrigins: ['*'] } }).cors.allowOrigins).toEqual(['*']);
  });

  it.each([
    ['https://app.example.com/', 'a trailing slash'],
    ['https://app.example.com/path', 'a path'],
    ['app.example.com', 'no scheme'],
    ['ftp://app.example.com', 'another scheme'],
  ])('refuses the origin %s (%s), naming the entry', (origin) => {
    expect(refusal({ cors: { allowOrigins: [origin] } })).toMatch(/^cors\.allowOrigins\[0\]: /);
  });

  it('refuses * beside other origins', () => {
    expect(refusal({ cors: { allowOrigins: ['*', 'https://a.example.com'] } })).toMatch(
      /^cors\.allowOrigins: /,
    );
  });
});
