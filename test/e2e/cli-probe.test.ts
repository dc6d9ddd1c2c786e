import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../lambda/local/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../lambda/local/fakes/openai-fake.js';
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

  it('refuses an unknown model name with status 2', async () => {
    const { code, stderr } = await runCliCaptured(['probe', '--config', config, 'nope']);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown model 'nope'");
  });
});
