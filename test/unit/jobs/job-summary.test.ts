import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../lambda/core/jobs/job.js';
import { webhookBody } from '../../../lambda/doors/jobs/job-format.js';
import { jobView } from '../../../lambda/doors/jobs/job-view.js';
import { idempotentJobId } from '../../../lambda/doors/jobs/jobs-routes.js';

const BASE: JobRecord = {
  jobId: 'nightly:acct-1:2026-11-29T03:00:00Z',
  pipeline: 'p',
  request: { messages: [{ role: 'user', content: 'secret prompt text' }] },
  status: 'succeeded',
  createdAt: 1_780_000_000_000,
  updatedAt: 1_780_000_005_000,
  runs: [
    {
      at: 1_780_000_001_000,
      reason: 'exhausted',
      attempts: 3,
      route: 'a:429,b:503,c:503',
      failureClass: 'unavailable',
    },
    { at: 1_780_000_005_000, reason: 'success', attempts: 2, route: 'a:429,c:200', model: 'c' },
  ],
  result: {
    model: 'c',
    content: 'the answer',
    finishReason: 'stop',
    usage: { inputTokens: 12, outputTokens: 4 },
  },
  deliver: { url: 'https://hooks.example/abc?token=t', secretEnv: 'HOOK' },
  enqueuedAt: 1_780_000_000_100,
  schedule: 'nightly',
  expiresAt: 1_781_209_600,
};

describe('job view', () => {
  it('keeps the tool calls of an answer that made them', () => {
    const record: JobRecord = {
      ...BASE,
      result: {
        model: 'c',
        content: null,
        toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }],
        finishReason: 'tool_calls',
        usage: { inputTokens: 12, outputTokens: 4 },
      },
    };
    expect(jobView(record).result?.choices[0]).toMatchObject({
      message: {
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('shows status, the answer as a chat.completion, every run and the attempts over all runs', () => {
    const view = jobView(BASE);
    expect(view).toMatchObject({
      id: BASE.jobId,
      object: 'job',
      status: 'succeeded',
      schedule: 'nightly',
      created: 1_780_000_000,
      enqueued: true,
      attempts: 5,
      error: null,
      delivery: { status: 'pending', delivered_at: null },
    });
    expect(view.runs[0]).toEqual({
      at: '2026-05-28T20:26:41.000Z',
      reason: 'exhausted',
      attempts: 3,
      route: 'a:429,b:503,c:503',
      model: null,
      failure_class: 'unavailable',
    });
    expect(view.result).toMatchObject({
      object: 'chat.completion',
      model: 'c',
      choices: [{ message: { role: 'assistant', content: 'the answer' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 },
    });
  });

  it('never shows the prompt or the webhook URL', () => {
    const text = JSON.stringify(jobView(BASE));
    expect(text).not.toContain('secret prompt text');
    expect(text).not.toContain('token=t');
  });

  it('reads delivery as none, pending or delivered', () => {
    expect(jobView({ ...BASE, deliver: undefined }).delivery.status).toBe('none');
    const delivered = jobView({
      ...BASE,
      deliver: { ...BASE.deliver, url: 'x', deliveredAt: 1_780_000_006_000 },
    });
    expect(delivered.delivery).toEqual({ status: 'delivered', delivered_at: '2026-05-28T20:26:46.000Z' });
  });

  it('builds a webhook body only for a finished job', () => {
    expect(webhookBody({ ...BASE, status: 'retrying' })).toBeUndefined();
    expect(webhookBody(BASE)).toMatchObject({
      jobId: BASE.jobId,
      status: 'succeeded',
      pipeline: 'p',
      error: null,
    });
    const failed = webhookBody({
      ...BASE,
      status: 'failed',
      result: undefined,
      error: { code: 'invalid_request', message: 'bad' },
    });
    expect(failed).toMatchObject({ status: 'failed', result: null, error: { code: 'invalid_request' } });
  });
});

describe('idempotent job ids', () => {
  it('are stable for one caller and key, and differ between callers and keys', () => {
    expect(idempotentJobId('app', 'k1')).toBe(idempotentJobId('app', 'k1'));
    expect(idempotentJobId('app', 'k1')).toMatch(/^job_[0-9a-f]{32}$/);
    expect(idempotentJobId('ops', 'k1')).not.toBe(idempotentJobId('app', 'k1'));
    expect(idempotentJobId('app', 'k2')).not.toBe(idempotentJobId('app', 'k1'));
    expect(idempotentJobId(undefined, 'k1')).not.toBe(idempotentJobId('app', 'k1'));
  });
});
