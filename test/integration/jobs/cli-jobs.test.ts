import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../../../lambda/dev/fakes/fake-upstream.js';
import { startFakeOpenAI } from '../../../lambda/dev/fakes/openai-fake.js';
import { runCliCaptured, writeTempConfig } from '../../helpers/cli-harness.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

const SECRET = 'whsec-cli-0123456789';
let openai: FakeUpstream;
let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
let configPath: string;
const env = { HOOK_SECRET: SECRET, FAKE_KEY: 'sk-test-0123456789' };

beforeEach(async () => {
  openai = await startFakeOpenAI();
  hooks = await startWebhookReceiver(SECRET);
  configPath = writeTempConfig({
    providers: { fake: { type: 'openai', baseURL: openai.url, apiKeyEnv: 'FAKE_KEY' } },
    models: { a: { provider: 'fake', model: 'model-a' }, b: { provider: 'fake', model: 'model-b' } },
    pipelines: { p: { chain: 'a,b', maxAttempts: 2 } },
    jobs: { maxReceiveCount: 2 },
    schedules: {
      nightly: {
        expression: 'rate(1 day)',
        pipeline: 'p',
        spreadSeconds: 30,
        jobs: [
          { id: 'acct-1', request: { messages: [{ role: 'user', content: 'prompt-text-one' }] } },
          { id: 'acct-2', request: { messages: [{ role: 'user', content: 'prompt-text-two' }] } },
        ],
        deliver: { url: hooks.url, secretEnv: 'HOOK_SECRET' },
      },
    },
  });
});

afterEach(async () => {
  await Promise.all([openai.close(), hooks.close()]);
});

describe('switchyard run-schedule (memory backend)', () => {
  it('fires the schedule once, runs its jobs in-process and shows each job with its route and delivery', async () => {
    const { code, stdout } = await runCliCaptured(
      ['run-schedule', 'nightly', '--config', configPath, '--time', '2026-11-29T03:00:00Z', '--no-spread'],
      env,
    );
    expect(code).toBe(0);
    expect(stdout).toContain('schedule nightly at 2026-11-29T03:00:00Z: 2 enqueued, 0 already enqueued');
    expect(stdout).toMatch(/JOB\s+STATUS\s+RUNS\s+ROUTE\s+DELIVERY/);
    expect(stdout).toMatch(/nightly:acct-1:2026-11-29T03:00:00Z\s+succeeded\s+1\s+a:200\s+delivered/);
    expect(stdout).toMatch(/nightly:acct-2:2026-11-29T03:00:00Z\s+succeeded\s+1\s+a:200\s+delivered/);
    expect([...hooks.byJob().values()]).toEqual([1, 1]);
    expect(hooks.received.every((h) => h.validSignature)).toBe(true);
    // Nothing of the prompt or the answer reaches the terminal.
    expect(stdout).not.toContain('prompt-text');
  });

  it('shows jobs that kept failing as parked in the dead-letter queue, and exits 1', async () => {
    openai.setDefault('*', { status: 503 });
    const { code, stdout } = await runCliCaptured(
      ['run-schedule', 'nightly', '--config', configPath, '--no-spread', '--wait-seconds', '20'],
      env,
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(/nightly:acct-1:\S+\s+retrying \(dead-letter queue\)\s+2\s/);
    expect(hooks.received).toEqual([]);
  });

  it.each([
    [['run-schedule'], /usage: switchyard run-schedule/],
    [['run-schedule', 'weekly'], /unknown schedule 'weekly' \(known: nightly\)/],
    [['run-schedule', 'nightly', '--time', 'tomorrow'], /--time must be an ISO 8601 time/],
    [['run-schedule', 'nightly', '--wait-seconds', '0'], /--wait-seconds must be a positive whole number/],
  ])('refuses %j with one line and exit 2', async (argv, message) => {
    const { code, stderr } = await runCliCaptured([...argv, '--config', configPath], env);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});

describe('switchyard replay (input checks)', () => {
  it.each([
    [['replay', '--max', '0'], /--max must be a positive whole number/],
    [['replay', '--queue', 'not-a-url'], /--queue must be a queue URL/],
    [['replay', 'extra'], /usage: switchyard replay/],
  ])('refuses %j with exit 2', async (argv, message) => {
    const { code, stderr } = await runCliCaptured(argv, { AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:9' });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('says in one line that SQS cannot be reached, with exit 1', async () => {
    const { code, stderr } = await runCliCaptured(
      ['replay', '--queue', 'http://127.0.0.1:9/000000000000/jobs'],
      {
        AWS_ENDPOINT_URL_SQS: 'http://127.0.0.1:9',
      },
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/^switchyard replay: cannot read the dead-letter queue of .*cannot reach SQS/);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });
});
