import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../lambda/core/jobs/job.js';
import { jobResultView } from '../../../lambda/doors/jobs/job-view.js';

const record = (request: Record<string, unknown>): JobRecord => ({
  jobId: 'job_1',
  pipeline: 'p',
  request,
  status: 'succeeded',
  createdAt: 1_000,
  updatedAt: 2_000,
  runs: [],
  expiresAt: 10,
  result: {
    content: null,
    toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }],
    finishReason: 'tool_calls',
    model: 'a',
  },
});

describe('a stored job answer', () => {
  it('comes back as a legacy function_call when the job asked with functions', () => {
    const view = jobResultView(record({ messages: [], functions: [{ name: 'lookup' }] }));
    expect(view?.choices[0]?.message).toMatchObject({
      function_call: { name: 'lookup', arguments: '{"q":"x"}' },
    });
    expect(view?.choices[0]?.message).not.toHaveProperty('tool_calls');
    expect(view?.choices[0]?.finish_reason).toBe('function_call');
  });

  it('comes back with tool_calls otherwise', () => {
    const view = jobResultView(record({ messages: [], tools: [] }));
    expect(view?.choices[0]?.message).toHaveProperty('tool_calls');
    expect(view?.choices[0]?.finish_reason).toBe('tool_calls');
  });
});
