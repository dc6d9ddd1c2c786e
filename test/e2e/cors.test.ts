import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startGatewayHarness } from '../helpers/gateway-harness.js';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.net';
const KEY = 'sy-cors-caller-key-0123456789abcdef';

type Harness = Awaited<ReturnType<typeof startGatewayHarness>>;

const preflight = (url: string, origin: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, x-stainless-os',
    },
  });

describe('CORS (cors.allowOrigins), over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGatewayHarness(
      { p: { chain: 'a' } },
      {
        auth: { keys: { web: KEY } },
        configure: (config) => {
          config.cors = { allowOrigins: [ALLOWED], maxAgeSeconds: 300 };
        },
      },
    );
  });
  afterAll(() => h.close());

  it('answers a preflight from an allowed origin 204, without a caller key, naming the origin, methods and headers', async () => {
    const res = await preflight(h.url, ALLOWED);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization,content-type,x-stainless-os');
    expect(res.headers.get('access-control-max-age')).toBe('300');
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('answers a preflight from any other origin without an allow-origin header, so the browser refuses', async () => {
    const res = await preflight(h.url, OTHER);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets an allowed page read the answer and its evidence headers', async () => {
    const res = await h.post(
      { model: 'p', messages: [{ role: 'user', content: 'hi' }] },
      { ...bearer(KEY), origin: ALLOWED },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('access-control-expose-headers')).toContain('x-switchyard-model');
  });

  it('lets an allowed page read the retry advice of a refusal (x-should-retry, retry-after-ms)', async () => {
    const res = await h.post(
      { model: 'p', messages: [{ role: 'wizard', content: 'hi' }] },
      {
        ...bearer(KEY),
        origin: ALLOWED,
      },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const exposed = res.headers.get('access-control-expose-headers')?.split(',') ?? [];
    expect(exposed).toEqual(expect.arrayContaining(['x-should-retry', 'retry-after-ms']));
  });

  it('puts the allow-origin header on a refusal too (401 without a key), so the page can read the error', async () => {
    const res = await h.post(
      { model: 'p', messages: [{ role: 'user', content: 'hi' }] },
      { origin: ALLOWED },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('gives a request from another origin no allow-origin header', async () => {
    const res = await h.post(
      { model: 'p', messages: [{ role: 'user', content: 'hi' }] },
      { ...bearer(KEY), origin: OTHER },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS off (no cors section)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGatewayHarness({ p: { chain: 'a' } }, { auth: { keys: { web: KEY } } });
  });
  afterAll(() => h.close());

  it('sends no CORS header and leaves a preflight to caller authentication (401)', async () => {
    const res = await preflight(h.url, ALLOWED);
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
