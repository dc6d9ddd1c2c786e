import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/dev/fakes/openai-fake.js';
import { runCliCaptured, writeTempConfig } from '../helpers/cli-harness.js';

let fake: FakeUpstream;
let config: string;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  config = writeTempConfig({
    providers: { fake: { type: 'openai', baseURL: fake.url } },
    models: {
      fine: { provider: 'fake', model: 'model-fine' },
      retired: { provider: 'fake', model: 'model-retired' },
      refused: { provider: 'fake', model: 'model-refused' },
      busy: { provider: 'fake', model: 'model-busy' },
    },
  });
  fake.setDefault('model-retired', { status: 404, errorMessage: 'The model `model-retired` does not exist' });
  fake.setDefault('model-refused', { status: 401 });
  fake.setDefault('model-busy', { status: 429, retryAfter: 3 });
});

afterAll(async () => {
  await fake.close();
});

describe('switchyard probe', () => {
  it('reports every model and exits 1 when a route is dead (retired model, refused credential)', async () => {
    const { code, stdout } = await runCliCaptured(['probe', '--config', config]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/fine\s+fake\s+model-fine\s+ok\s+200/);
    expect(stdout).toMatch(/retired\s+fake\s+model-retired\s+model_not_found\s+404/);
    expect(stdout).toMatch(/refused\s+fake\s+model-refused\s+upstream_auth\s+401/);
    expect(stdout).toMatch(/busy\s+fake\s+model-busy\s+rate_limited\s+429/);
    expect(stdout).toContain('dead routes: retired (model_not_found), refused (upstream_auth)');
  });

  it('prints one JSON object with --json, and sends one request per model straight to the provider', async () => {
    fake.reset();
    fake.setDefault('model-busy', { status: 429 });
    const { code, stdout } = await runCliCaptured(['probe', '--config', config, '--json', 'fine', 'busy']);
    expect(code).toBe(0);
    const output = JSON.parse(stdout);
    expect(output.dead).toEqual([]);
    expect(output.models.map((m: { model: string; outcome: string }) => [m.model, m.outcome])).toEqual([
      ['fine', 'ok'],
      ['busy', 'rate_limited'],
    ]);
    expect(fake.requests.map((r) => r.model).sort()).toEqual(['model-busy', 'model-fine']);
  });

  describe('a model with several routes', () => {
    let routedConfig: string;
    beforeAll(() => {
      routedConfig = writeTempConfig({
        providers: {
          fake: { type: 'openai', baseURL: fake.url },
          backup: { type: 'openai', baseURL: fake.url },
        },
        models: {
          fine: {
            provider: 'fake',
            model: 'model-fine',
            routes: [{ provider: 'backup', model: 'model-gone' }],
          },
        },
      });
    });

    it('probes every route, so a dead second route is found before a fallback needs it', async () => {
      fake.reset();
      fake.setDefault('model-gone', { status: 404, errorMessage: 'The model `model-gone` does not exist' });
      const { code, stdout } = await runCliCaptured(['probe', '--config', routedConfig]);
      expect(code).toBe(1);
      expect(stdout).toMatch(/fine\s+fake\s+model-fine\s+ok\s+200/);
      expect(stdout).toMatch(/fine~backup\s+backup\s+model-gone\s+model_not_found\s+404/);
      expect(stdout).toContain('dead routes: fine~backup (model_not_found)');
      expect(fake.requests.map((r) => r.model).sort()).toEqual(['model-fine', 'model-gone']);
    });

    it('probes only the route named by its key', async () => {
      fake.reset();
      const { code, stdout } = await runCliCaptured([
        'probe',
        '--config',
        routedConfig,
        '--json',
        'fine~backup',
      ]);
      expect(code).toBe(0);
      expect(JSON.parse(stdout).models.map((m: { model: string }) => m.model)).toEqual(['fine~backup']);
      expect(fake.requests.map((r) => r.model)).toEqual(['model-gone']);
    });

    it('names an unknown route key', async () => {
      const { code, stderr } = await runCliCaptured(['probe', '--config', routedConfig, 'fine~nowhere']);
      expect(code).toBe(2);
      expect(stderr).toContain("unknown model 'fine~nowhere'");
    });
  });

  it('probes an embedding model with an embedding of one short text, and checks its vector length', async () => {
    const embeddingConfig = writeTempConfig({
      providers: { fake: { type: 'openai', baseURL: fake.url } },
      models: {
        small: { provider: 'fake', model: 'model-embed', dimensions: 4 },
        wrong: { provider: 'fake', model: 'model-embed-wrong', dimensions: 4 },
      },
    });
    fake.reset();
    fake.setDefault('model-embed', { dimensions: 4 });
    fake.setDefault('model-embed-wrong', { dimensions: 3 });
    const { code, stdout } = await runCliCaptured(['probe', '--config', embeddingConfig, '--json']);
    expect(code).toBe(0);
    expect(
      JSON.parse(stdout).models.map((m: { model: string; outcome: string }) => [m.model, m.outcome]),
    ).toEqual([
      ['small', 'ok'],
      ['wrong', 'malformed_response'],
    ]);
    expect(fake.requests.map((r) => r.messages)).toEqual([
      [{ role: 'input', text: 'ok' }],
      [{ role: 'input', text: 'ok' }],
    ]);
  });

  describe('a model whose provider has no key here', () => {
    let keyedConfig: string;
    beforeAll(() => {
      keyedConfig = writeTempConfig({
        providers: {
          fake: { type: 'openai', baseURL: fake.url },
          nokey: { type: 'openai', baseURL: fake.url, apiKeyEnv: 'NOKEY_API_KEY' },
        },
        models: {
          fine: { provider: 'fake', model: 'model-fine' },
          keyless: { provider: 'nokey', model: 'model-keyless' },
        },
      });
    });

    it('is reported as not configured, not as a dead route, sends nothing, and the exit is 0', async () => {
      fake.reset();
      const { code, stdout } = await runCliCaptured(['probe', '--config', keyedConfig]);
      expect(code).toBe(0);
      expect(stdout).toMatch(
        /keyless\s+nokey\s+model-keyless\s+not_configured\s+-\s+\d+ ms\s+no API key for provider 'nokey' \(set NOKEY_API_KEY\)/,
      );
      expect(stdout).toContain(
        '\nno dead routes among 1 model(s)\nnot configured: keyless — no API key here (set NOKEY_API_KEY); not probed, not a dead route\n',
      );
      expect(fake.requestsFor('model-keyless')).toEqual([]);
    });

    it('is listed under notConfigured with --json, and not under dead', async () => {
      const { code, stdout } = await runCliCaptured(['probe', '--config', keyedConfig, '--json']);
      expect(code).toBe(0);
      const output = JSON.parse(stdout);
      expect(output.dead).toEqual([]);
      expect(output.notConfigured).toEqual(['keyless']);
      expect(output.models[1]).toMatchObject({
        model: 'keyless',
        outcome: 'not_configured',
        status: null,
        dead: false,
      });
    });

    it('exits 1 when nothing could be probed because no named model has its key', async () => {
      const { code, stdout } = await runCliCaptured(['probe', '--config', keyedConfig, 'keyless']);
      expect(code).toBe(1);
      expect(stdout).toContain(
        '\nno model could be probed: none of the 1 model(s) has its provider key here\n',
      );
    });

    it('probes the model once its key is in the environment', async () => {
      fake.reset();
      const env = { NOKEY_API_KEY: ['sk', 'probe', 'Xq7vR2mT9wL4nB8c'].join('-') };
      const { code, stdout } = await runCliCaptured(['probe', '--config', keyedConfig, 'keyless'], env);
      expect(code).toBe(0);
      expect(stdout).toMatch(/keyless\s+nokey\s+model-keyless\s+ok\s+200/);
      expect(stdout).toContain('\nno dead routes among 1 model(s)\n');
      expect(stdout).not.toContain('not configured');
      expect(fake.requestsFor('model-keyless')).toHaveLength(1);
    });
  });

  it('refuses an unknown model name with status 2', async () => {
    const { code, stderr } = await runCliCaptured(['probe', '--config', config, 'nope']);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown model 'nope'");
  });
});
