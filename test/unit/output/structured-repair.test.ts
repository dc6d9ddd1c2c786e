import { describe, expect, it } from 'vitest';
import type {
  CallOptions,
  ChatModel,
  ChatRequest,
  ChatResult,
} from '../../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import type { AttemptLedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { checkedGenerate, type RepairPolicy } from '../../../lambda/core/output/checked-calls.js';
import { routeGenerate } from '../../../lambda/core/router/route-chat.js';
import type { RouteFailure, RouteModel, RoutePolicy } from '../../../lambda/core/router/route-types.js';
import { terminalError } from '../../../lambda/core/router/terminal-error.js';
import { createAjvSchemaValidator } from '../../../lambda/validation/ajv-schema-validator.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { uniformTimeouts } from '../../helpers/uniform-timeouts.js';

const SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
};
const compiled = await createAjvSchemaValidator().compile(SCHEMA);
if (!compiled.ok) throw new Error(compiled.problem);
const CHECK = { type: 'json_schema' as const, check: compiled.check };
const CHAT: ChatRequest = {
  messages: [{ role: 'user', content: 'Is it on?' }],
  responseFormat: { type: 'json_schema', name: 'reply', schema: SCHEMA },
};
const GOOD = '{"answer":"yes"}';
const WRONG_KEY = '{"response":"yes"}';

/** A model that answers the given texts in turn (the last repeats) and keeps every request it got. */
function textModel(key: string, texts: string[]): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    key,
    provider: 'fake',
    requests,
    async generate(request: ChatRequest, _options: CallOptions): Promise<ChatResult> {
      requests.push(request);
      const content = texts[Math.min(requests.length - 1, texts.length - 1)] ?? GOOD;
      return { content, toolCalls: [], finishReason: 'stop', usage: { inputTokens: 7, outputTokens: 3 } };
    },
    stream: () => {
      throw new Error('not streamed here');
    },
  };
}

function run(
  answers: Record<string, string[]>,
  groups: string[][],
  repair: RepairPolicy,
  policy: Partial<RoutePolicy> = {},
) {
  const h = createRouterHarness({ models: {}, tiers: tiersOf(groups), policy });
  const models = new Map(Object.entries(answers).map(([key, texts]) => [key, textModel(key, texts)]));
  const routes = new Map<string, RouteModel>(
    [...models].map(([key, model]) => [key, { model, timeouts: uniformTimeouts(10_000) }]),
  );
  const deps = { ...h.deps, models: (key: string) => routes.get(key) };
  const request = {
    requestId: 'req-1',
    pipeline: 'p',
    tiers: tiersOf(groups),
    policy: {
      maxAttempts: 3,
      deadlineMs: 15_000,
      fallbackOnContextLength: false,
      substitution: 'allow' as const,
      ...policy,
    },
    stream: false,
  };
  const result = routeGenerate(request, deps, CHAT, checkedGenerate(CHAT, CHAT, CHECK, repair));
  const sent = (key: string) => models.get(key)?.requests ?? [];
  return { h, result, sent, attempts: () => h.attemptLines() as AttemptLedgerEntry[] };
}

describe('structured output: check and repair in the attempt loop', () => {
  it('repairs on the same model: the retry carries the refused answer, the errors and the schema', async () => {
    const r = run({ a: [WRONG_KEY, GOOD], b: [GOOD] }, [['a'], ['b']], {
      repairAttempts: 1,
      repairWith: 'same',
    });
    const result = await r.result;
    expect(result.ok && result.value.content).toBe(GOOD);
    expect(r.attempts().map((a) => [a.model, a.action, a.outcome])).toEqual([
      ['a', 'first', 'schema_invalid'],
      ['a', 'retry', 'ok'],
    ]);
    const repair = r.sent('a')[1]?.messages ?? [];
    expect(repair.slice(0, 2)).toEqual([CHAT.messages[0], { role: 'assistant', content: WRONG_KEY }]);
    expect(repair[2]?.content).toContain(
      "Validation errors: / must have required property 'answer'; / must NOT have additional properties: 'response'",
    );
    expect(repair[2]?.content).toContain(`JSON schema: ${JSON.stringify(SCHEMA)}`);
    expect(r.sent('b')).toHaveLength(0);
  });

  it('records the refused attempt with its tokens and status-less trail mark, and never as a breaker failure', async () => {
    const r = run({ a: [WRONG_KEY, GOOD] }, [['a']], { repairAttempts: 1, repairWith: 'same' });
    const result = await r.result;
    expect(result.route).toBe('a:schema_invalid,a:200');
    expect(r.attempts()[0]).toMatchObject({ usage: { inputTokens: 7, outputTokens: 3 }, costUsd: undefined });
    expect(r.attempts()[0]?.status).toBeUndefined();
    const snapshot = (await r.h.store.readPipeline('p', r.h.clock.now())).get('a');
    const failures = Object.entries(snapshot?.buckets ?? {}).reduce((n, [, b]) => n + b.failures, 0);
    expect(failures).toBe(0);
  });

  it('repairs on the next model with repairWith next', async () => {
    const r = run({ a: [WRONG_KEY], b: [GOOD] }, [['a'], ['b']], { repairAttempts: 1, repairWith: 'next' });
    const result = await r.result;
    expect(result.ok && result.model).toBe('b');
    expect(r.sent('a')).toHaveLength(1);
    expect(r.sent('b')[0]?.messages).toHaveLength(3);
    expect(r.attempts().map((a) => a.action)).toEqual(['first', 'fallback']);
  });

  it('after the repairs are spent it falls back with the plain request', async () => {
    const r = run({ a: ['not json'], b: [GOOD] }, [['a'], ['b']], { repairAttempts: 1, repairWith: 'same' });
    const result = await r.result;
    expect(result.ok && result.model).toBe('b');
    expect(r.attempts().map((a) => `${a.model}:${a.action}:${a.outcome}`)).toEqual([
      'a:first:schema_invalid',
      'a:retry:schema_invalid',
      'b:fallback:ok',
    ]);
    expect(r.sent('b')[0]?.messages).toEqual(CHAT.messages);
  });

  it('with repairAttempts 0 it falls back at once, without repair messages', async () => {
    const r = run({ a: [WRONG_KEY], b: [GOOD] }, [['a'], ['b']], { repairAttempts: 0, repairWith: 'same' });
    await r.result;
    expect(r.sent('a')).toHaveLength(1);
    expect(r.sent('b')[0]?.messages).toEqual(CHAT.messages);
  });

  it('repairs at most repairAttempts times on the same model, then leaves it', async () => {
    const r = run(
      { a: [WRONG_KEY], b: [GOOD] },
      [['a'], ['b']],
      { repairAttempts: 2, repairWith: 'same' },
      { maxAttempts: 4 },
    );
    const result = await r.result;
    expect(r.sent('a')).toHaveLength(3);
    expect(result.ok && result.model).toBe('b');
  });

  it('never valid: the request fails with 502 schema_invalid naming the last errors, within maxAttempts', async () => {
    const r = run({ a: [WRONG_KEY], b: ['```json\n{"answer": 1}\n```'] }, [['a'], ['b']], {
      repairAttempts: 1,
      repairWith: 'same',
    });
    const result = (await r.result) as RouteFailure;
    expect(result.ok).toBe(false);
    expect(r.attempts()).toHaveLength(3);
    expect(terminalError(result, 'p')).toEqual({
      status: 502,
      type: 'api_error',
      code: 'schema_invalid',
      message:
        "pipeline 'p' got no answer in the requested JSON format after 3 attempt(s): the answer does not match the requested JSON format: /answer must be string; route: a:schema_invalid,a:schema_invalid,b:schema_invalid",
    });
    expect(r.h.requestLines()[0]).toMatchObject({ reason: 'exhausted', failureClass: 'schema_invalid' });
  });

  it('keeps the repair for the next model that can be called when one has no key here', async () => {
    const h = createRouterHarness({ models: {}, tiers: tiersOf([['a'], ['k'], ['b']]) });
    const a = textModel('a', [WRONG_KEY]);
    const b = textModel('b', [GOOD]);
    const keyless: ChatModel = {
      key: 'k',
      provider: 'spare',
      generate: async () => {
        throw new ProviderError({
          provider: 'spare',
          model: 'k',
          failureClass: 'not_configured',
          message: 'no key',
        });
      },
      stream: () => {
        throw new Error('not streamed here');
      },
    };
    const routes = new Map<string, RouteModel>(
      [a, keyless, b].map((model) => [model.key, { model, timeouts: uniformTimeouts(10_000) }]),
    );
    const deps = { ...h.deps, models: (key: string) => routes.get(key) };
    const request = {
      requestId: 'r',
      pipeline: 'p',
      tiers: tiersOf([['a'], ['k'], ['b']]),
      policy: {
        maxAttempts: 3,
        deadlineMs: 15_000,
        fallbackOnContextLength: false,
        substitution: 'allow' as const,
      },
      stream: false,
    };
    const call = checkedGenerate(CHAT, CHAT, CHECK, { repairAttempts: 1, repairWith: 'next' });
    const result = await routeGenerate(request, deps, CHAT, call);
    expect(result.ok && result.model).toBe('b');
    expect(result.route).toBe('a:schema_invalid,k:not_configured,b:200');
    expect(b.requests[0]?.messages).toHaveLength(3);
  });

  it('does not check an answer that calls tools', async () => {
    const h = createRouterHarness({ models: {}, tiers: tiersOf([['a']]) });
    const model: ChatModel = {
      key: 'a',
      provider: 'fake',
      generate: async () => ({
        content: null,
        toolCalls: [{ id: 't', name: 'f', arguments: '{}' }],
        finishReason: 'tool_calls',
      }),
      stream: () => {
        throw new Error('not streamed here');
      },
    };
    const deps = { ...h.deps, models: () => ({ model, timeouts: uniformTimeouts(10_000) }) };
    const request = {
      requestId: 'r',
      pipeline: 'p',
      tiers: tiersOf([['a']]),
      policy: {
        maxAttempts: 3,
        deadlineMs: 15_000,
        fallbackOnContextLength: false,
        substitution: 'allow' as const,
      },
      stream: false,
    };
    const result = await routeGenerate(
      request,
      deps,
      CHAT,
      checkedGenerate(CHAT, CHAT, CHECK, { repairAttempts: 1, repairWith: 'same' }),
    );
    expect(result.ok && result.value.finishReason).toBe('tool_calls');
  });
});
