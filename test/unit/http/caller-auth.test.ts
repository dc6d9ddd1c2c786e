import * as crypto from 'node:crypto';
import { Hono } from 'hono';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type CallerKeySource,
  callerAuth,
  matchCallerKey,
  presentedKey,
  sha256Hex,
} from '../../../lambda/http/caller-auth.js';
import type { HttpEnv } from '../../../lambda/http/http-env.js';
import { createStaticCallerKeys } from '../../../lambda/http/static-caller-keys.js';
import { createLocalGateway } from '../../../lambda/wiring/create-local-gateway.js';
import { recordingLog } from '../../helpers/recording-log.js';
import { testConfig } from '../../helpers/test-config.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const KEY = 'sy-right-key-0123456789abcdefghijklmnopqrstuv';
const OTHER = 'sy-other-key-0123456789abcdefghijklmnopqrstu';
const HASHES = { ci: sha256Hex('sy-ci'), app: sha256Hex(KEY), ops: sha256Hex('sy-ops') };

const { log, lines } = recordingLog('warn', 'error');

function appWith(source: CallerKeySource) {
  const app = new Hono<HttpEnv>();
  app.use('/v1/*', callerAuth(source, { log }));
  app.get('/v1/whoami', (c) => c.json({ name: c.get('callerKeyName') ?? null }));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  return app;
}

const app = appWith(createStaticCallerKeys(HASHES));

beforeEach(() => {
  lines.length = 0;
  vi.mocked(crypto.timingSafeEqual).mockClear();
});

describe('callerAuth', () => {
  it('answers 401 in the OpenAI envelope when no key is sent', async () => {
    const res = await app.request('/v1/whoami');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = await res.json();
    expect(body).toEqual({
      error: {
        message: expect.stringContaining('missing caller key'),
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        param: null,
      },
    });
  });

  it('answers 401 for a wrong key and never echoes or logs it', async () => {
    const res = await app.request('/v1/whoami', { headers: { authorization: `Bearer ${OTHER}` } });
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(JSON.parse(text).error.code).toBe('invalid_api_key');
    expect(text).not.toContain(OTHER);
    expect(text).not.toContain(OTHER.slice(0, 12));
    expect(JSON.stringify(lines)).not.toContain(OTHER.slice(3, 12));
    expect(lines.map((l) => l.message)).toEqual(['caller refused: unknown key']);
  });

  it.each([
    ['Authorization: Bearer', { authorization: `Bearer ${KEY}` }],
    ['a lower-case bearer scheme', { authorization: `bearer ${KEY}` }],
    ['x-api-key', { 'x-api-key': KEY }],
  ])('lets the right key through via %s and names it on the context', async (_, headers) => {
    const res = await app.request('/v1/whoami', { headers });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'app' });
  });

  it('does not take a non-Bearer Authorization scheme as the key', async () => {
    const res = await app.request('/v1/whoami', { headers: { authorization: `Basic ${KEY}` } });
    expect(res.status).toBe(401);
  });

  it('leaves /healthz open', async () => {
    const res = await app.request('/healthz');
    expect(res.status).toBe(200);
  });

  it('compares with timingSafeEqual against every hash, without stopping at the match', async () => {
    const res = await app.request('/v1/whoami', { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    // Three configured keys, the match is the second: all three are still compared.
    expect(crypto.timingSafeEqual).toHaveBeenCalledTimes(3);
  });

  it('is off when the source has no keys (a laptop without an auth block)', async () => {
    const open = appWith(createStaticCallerKeys(undefined));
    expect((await open.request('/v1/whoami')).status).toBe(200);
  });

  it('refuses every caller, with a clear message, when auth.keys is empty (revoking the last key)', async () => {
    const closed = appWith(createStaticCallerKeys({}));
    const res = await closed.request('/v1/whoami', { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toMatchObject({
      code: 'invalid_api_key',
      message: 'no caller key is accepted: this gateway has no caller keys configured',
    });
  });

  it('refuses every caller when the source answers an empty set (fail closed)', async () => {
    const closed = appWith({ hashes: async () => new Map() });
    const res = await closed.request('/v1/whoami', { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(401);
  });

  it('answers 503, not 500, when the key source fails', async () => {
    const broken = appWith({
      hashes: async () => {
        throw new Error('boom');
      },
    });
    const res = await broken.request('/v1/whoami', { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(503);
    expect((await res.json()).error.type).toBe('api_error');
  });
});

describe('matchCallerKey', () => {
  it('never matches a malformed stored hash', () => {
    expect(matchCallerKey('x', new Map([['bad', 'abc']]))).toBeUndefined();
    expect(matchCallerKey('x', new Map([['good', sha256Hex('x')]]))).toBe('good');
  });
});

describe('presentedKey', () => {
  it.each([
    [undefined, undefined, undefined],
    ['Bearer   ', undefined, undefined],
    ['Bearer k1', 'k2', 'k1'],
    ['Token k1', 'k2', 'k2'],
    [undefined, '  k2 ', 'k2'],
  ])('Authorization %j, x-api-key %j → %j', (authorization, apiKey, expected) => {
    expect(presentedKey(authorization, apiKey)).toBe(expected);
  });
});

describe('the local gateway', () => {
  const local = (keys?: Record<string, string>) =>
    createLocalGateway({
      config: testConfig(keys ? { auth: { keys } } : {}),
      env: {},
      log,
      ledger: () => {},
    }).app;

  it('protects /v1/* with auth.keys from the config, and leaves /healthz open', async () => {
    const app = local({ app: sha256Hex(KEY) });
    expect((await app.request('/v1/models')).status).toBe(401);
    expect((await app.request('/v1/models', { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(
      200,
    );
    expect((await app.request('/healthz')).status).toBe(200);
  });

  it('checks nothing without auth.keys', async () => {
    expect((await local().request('/v1/models')).status).toBe(200);
  });
});
