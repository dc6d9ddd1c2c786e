import { describe, expect, it } from 'vitest';
import { createRouteCapacity } from '../../../lambda/core/capacity/create-route-capacity.js';
import { createMemoryInFlight } from '../../../lambda/core/capacity/in-flight.js';
import type { RouteCapacity } from '../../../lambda/core/capacity/route-capacity.js';
import { capacitySchema } from '../../../lambda/core/catalog/capacity-config-schema.js';
import type {
  ChatModel,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
} from '../../../lambda/core/chat/chat-model.js';
import { ProviderError } from '../../../lambda/core/failures/provider-error.js';
import type { AttemptLedgerEntry } from '../../../lambda/core/ledger/ledger-entry.js';
import { checkedGenerate } from '../../../lambda/core/output/checked-calls.js';
import { type CommittedStream, routeGenerate, routeStream } from '../../../lambda/core/router/route-chat.js';
import type { RouteModel, RouteSuccess } from '../../../lambda/core/router/route-types.js';
import type { AfterOutputPolicy } from '../../../lambda/core/router/stream-continuation.js';
import { createMemoryAdmissionStore } from '../../../lambda/stores/memory-admission-store.js';
import { createAjvSchemaValidator } from '../../../lambda/validation/ajv-schema-validator.js';
import type { FakeClock } from '../../helpers/fake-clock.js';
import { createRouterHarness, tiersOf } from '../../helpers/router-harness.js';
import { uniformTimeouts } from '../../helpers/uniform-timeouts.js';

/** Model `a` calls provider `pa` (upstream `model-a`), `b` calls `pb` (`model-b`). */
const TARGETS: Record<string, { provider: string; model: string }> = {
  a: { provider: 'pa', model: 'model-a' },
  b: { provider: 'pb', model: 'model-b' },
};

/** The real bulkheads and quotas, with a count of the in-flight slots each route holds now. */
function capacityOf(
  settings: Record<string, unknown>,
  clock: { now(): number },
  onAcquire: () => void = () => {},
) {
  const parsed = capacitySchema.parse(settings);
  const real = createRouteCapacity({
    settings: parsed,
    clock,
    inFlight: createMemoryInFlight(parsed.leaseMs),
    quotaStore: createMemoryAdmissionStore(clock),
    routeOf: (key) => TARGETS[key],
  });
  const held = new Map<string, number>();
  const capacity: RouteCapacity = {
    limits: real.limits,
    async acquire(route, tokens) {
      onAcquire();
      const grant = await real.acquire(route, tokens);
      if (!grant.ok) return grant;
      held.set(route, (held.get(route) ?? 0) + 1);
      let given = false;
      return {
        ok: true,
        lease: {
          release() {
            if (!given) held.set(route, (held.get(route) ?? 0) - 1);
            given = true;
            grant.lease.release();
          },
        },
      };
    },
  };
  return { capacity, held: (route: string) => held.get(route) ?? 0 };
}

const policy = (extra: Record<string, unknown> = {}) => ({
  maxAttempts: 3,
  deadlineMs: 15_000,
  fallbackOnContextLength: false,
  substitution: 'allow' as const,
  ...extra,
});

const SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
const CHAT: ChatRequest = {
  messages: [{ role: 'user', content: 'ok?' }],
  responseFormat: { type: 'json_schema', name: 'r', schema: SCHEMA },
};
const compiled = await createAjvSchemaValidator().compile(SCHEMA);
if (!compiled.ok) throw new Error(compiled.problem);
const CHECK = { type: 'json_schema' as const, check: compiled.check };

describe('a structured-output repair takes its slot and quota like any attempt', () => {
  function run(settings: Record<string, unknown>, answers: Record<string, string[]>) {
    const h = createRouterHarness({ models: {}, tiers: tiersOf([['a'], ['b']]) });
    const { capacity, held } = capacityOf(settings, h.clock);
    const heldAtCall: Record<string, number[]> = { a: [], b: [] };
    const sent: Record<string, ChatRequest[]> = { a: [], b: [] };
    const model = (key: string): ChatModel => ({
      key,
      provider: TARGETS[key]?.provider ?? '',
      async generate(request): Promise<ChatResult> {
        sent[key]?.push(request);
        heldAtCall[key]?.push(held(key));
        const texts = answers[key] ?? [];
        const content = texts[Math.min((sent[key]?.length ?? 1) - 1, texts.length - 1)] ?? '{"ok":true}';
        return { content, toolCalls: [], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
      },
      stream: () => {
        throw new Error('plain answers only');
      },
    });
    const routes = new Map<string, RouteModel>(
      ['a', 'b'].map((key) => [key, { model: model(key), timeouts: uniformTimeouts(10_000) }]),
    );
    const deps = { ...h.deps, capacity, models: (key: string) => routes.get(key) };
    const request = {
      requestId: 'r',
      pipeline: 'p',
      tiers: tiersOf([['a'], ['b']]),
      policy: policy(),
      stream: false,
    };
    const repair = { repairAttempts: 1, repairWith: 'same' as const };
    return {
      result: routeGenerate(request, deps, CHAT, checkedGenerate(CHAT, CHAT, CHECK, repair)),
      h,
      sent,
      heldAtCall,
      held,
    };
  }

  it('at requestsPerMinute 2 the repair on the same model is the second request of the minute, and is sent', async () => {
    const r = run({ quotas: { pa: { 'model-a': { requestsPerMinute: 2 } } } }, { a: ['{}', '{"ok":true}'] });
    const result = await r.result;
    expect(result.route).toBe('a:schema_invalid,a:200');
  });

  it('at requestsPerMinute 1 the repair finds the quota spent: skipped, labelled, and carried by the next route', async () => {
    const r = run({ quotas: { pa: { 'model-a': { requestsPerMinute: 1 } } } }, { a: ['{}'] });
    const result = await r.result;
    expect(result.route).toBe('a:schema_invalid,!a:quota,b:200');
    expect(r.sent.a).toHaveLength(1);
    // The repair (the refused answer and its errors) went to b instead.
    expect(r.sent.b?.[0]?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const [, second] = r.h.attemptLines() as AttemptLedgerEntry[];
    expect(second).toMatchObject({
      model: 'b',
      skipped: [expect.objectContaining({ route: 'a', reason: 'quota' })],
    });
  });

  it('holds an in-flight slot under the bulkhead while it runs, and gives it back', async () => {
    const r = run({ routes: { a: { maxInFlight: 1 } } }, { a: ['{}', '{"ok":true}'] });
    const result = await r.result;
    expect(result.route).toBe('a:schema_invalid,a:200');
    // The first attempt's slot came back when it failed; the repair took it again.
    expect(r.heldAtCall.a).toEqual([1, 1]);
    expect(r.held('a')).toBe(0);
  });
});

/** A streaming model: each call follows the next script (text pieces, then a cut or a clean end). */
function streamModel(
  key: string,
  scripts: { text: string[]; cut?: boolean }[],
  held: (route: string) => number,
) {
  const sent: ChatRequest[] = [];
  const heldAtCall: number[] = [];
  const model: ChatModel = {
    key,
    provider: TARGETS[key]?.provider ?? '',
    generate: () => Promise.reject(new Error('streams only')),
    async *stream(request): AsyncIterable<ChatStreamEvent> {
      const script = scripts[Math.min(sent.length, scripts.length - 1)] ?? { text: [] };
      sent.push(request);
      heldAtCall.push(held(key));
      for (const text of script.text) yield { type: 'text', text };
      if (script.cut)
        throw new ProviderError({
          provider: model.provider,
          model: key,
          failureClass: 'network',
          message: 'cut',
        });
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
  return { model, sent, heldAtCall };
}

async function readToBreak(result: RouteSuccess<CommittedStream>) {
  let text = result.value.first.type === 'text' ? result.value.first.text : '';
  for (;;) {
    try {
      const next = await result.value.rest.next();
      if (next.done) return { text, error: undefined };
      if (next.value.type === 'text') text += next.value.text;
    } catch (error) {
      return { text, error: error as ProviderError };
    }
  }
}

describe('a stream continuation takes its slot and quota like any attempt', () => {
  function setup(
    settings: Record<string, unknown>,
    afterOutput: AfterOutputPolicy,
    scripts: Record<string, { text: string[]; cut?: boolean }[]>,
    chat: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] },
    onAcquire?: (clock: FakeClock) => void,
  ) {
    const tiers = tiersOf([['a'], ['b']]);
    const h = createRouterHarness({ models: {}, tiers });
    const { capacity, held } = capacityOf(settings, h.clock, () => onAcquire?.(h.clock));
    const models = Object.fromEntries(
      Object.entries(scripts).map(([key, s]) => [key, streamModel(key, s, held)]),
    );
    const routes = (key: string): RouteModel | undefined => {
      const m = models[key];
      return m && { model: m.model, timeouts: uniformTimeouts(10_000), prefill: true };
    };
    const request = { requestId: 'r', pipeline: 'p', tiers, policy: policy({ afterOutput }), stream: true };
    const deps = { ...h.deps, capacity, models: routes };
    /** Opens the stream, reads it to its cut, asks for the continuation. */
    const cutAndResume = async () => {
      const result = await routeStream(request, deps, chat);
      if (!result.ok) throw new Error('no commit');
      const broke = await readToBreak(result);
      if (!broke.error) throw new Error('the stream did not break');
      const usage = { inputTokens: 1, outputTokens: 2 };
      return result.resume?.({
        error: broke.error,
        usage,
        usageEstimated: true,
        text: broke.text,
        toolCall: false,
      });
    };
    return { h, models, held, capacity, cutAndResume };
  }

  const CUT_THEN_REST = [{ text: ['one', ' two'], cut: true }, { text: [' three'] }];

  it('at requestsPerMinute 2 the same route continues (its second request of the minute)', async () => {
    const s = setup({ quotas: { pa: { 'model-a': { requestsPerMinute: 2 } } } }, 'continue-same-model', {
      a: CUT_THEN_REST,
    });
    const next = await s.cutAndResume();
    expect(next?.continued).toEqual({ from: 'a', atToken: 2, by: 'a' });
    await next?.settle({ usage: { inputTokens: 1, outputTokens: 1 } });
    expect(s.h.requestLines().at(-1)).toMatchObject({ reason: 'success', route: 'a:cut@2,a:continued' });
  });

  it('at requestsPerMinute 1 the route is skipped, labelled, never called; the original failure stands', async () => {
    const s = setup({ quotas: { pa: { 'model-a': { requestsPerMinute: 1 } } } }, 'continue-same-model', {
      a: CUT_THEN_REST,
    });
    expect(await s.cutAndResume()).toBeUndefined();
    expect(s.models.a?.sent).toHaveLength(1);
    expect(s.h.requestLines().at(-1)).toMatchObject({
      reason: 'partial',
      failureClass: 'network',
      route: 'a:cut@2,!a:quota',
    });
  });

  it('with continue, a spent route is skipped and the next route continues, its ledger line listing the skip', async () => {
    const s = setup({ quotas: { pa: { 'model-a': { requestsPerMinute: 1 } } } }, 'continue', {
      a: CUT_THEN_REST,
      b: [{ text: [' three'] }],
    });
    const next = await s.cutAndResume();
    expect(next?.continued).toEqual({ from: 'a', atToken: 2, by: 'b' });
    await next?.settle({ usage: { inputTokens: 1, outputTokens: 1 } });
    expect(s.h.requestLines().at(-1)).toMatchObject({ route: 'a:cut@2,!a:quota,b:continued' });
    const continued = (s.h.attemptLines() as AttemptLedgerEntry[]).at(-1);
    expect(continued).toMatchObject({
      model: 'b',
      skipped: [expect.objectContaining({ route: 'a', reason: 'quota' })],
    });
  });

  it('at maxInFlight 1 the continuation holds the slot the broken attempt gave back, until it settles', async () => {
    const s = setup({ routes: { a: { maxInFlight: 1 } } }, 'continue-same-model', { a: CUT_THEN_REST });
    const next = await s.cutAndResume();
    expect(s.models.a?.heldAtCall).toEqual([1, 1]);
    expect(s.held('a')).toBe(1);
    await next?.settle({ usage: { inputTokens: 1, outputTokens: 1 } });
    expect(s.held('a')).toBe(0);
  });

  it('a full route is skipped at once, never waited for: the trail shows every refusal, the original failure stands', async () => {
    const s = setup(
      { routes: { b: { maxInFlight: 1 } }, quotas: { pa: { 'model-a': { requestsPerMinute: 1 } } } },
      'continue',
      { a: CUT_THEN_REST, b: [{ text: [' three'] }] },
    );
    // Another request holds b's only slot when the stream breaks.
    const other = await s.capacity.acquire('b', 0);
    expect(await s.cutAndResume()).toBeUndefined();
    expect(s.models.b?.sent).toHaveLength(0);
    expect(s.h.requestLines().at(-1)).toMatchObject({
      reason: 'partial',
      failureClass: 'network',
      route: 'a:cut@2,!a:quota,!b:full',
    });
    if (other.ok) other.lease.release();
  });

  it('a continuation whose slot came after the deadline is not sent, and gives the slot back', async () => {
    let acquired = 0;
    const s = setup(
      { routes: { a: { maxInFlight: 1 } } },
      'continue-same-model',
      { a: CUT_THEN_REST },
      undefined,
      // The opening attempt's take is quick; the continuation's outlasts the 15 s deadline.
      (clock) => {
        if (++acquired === 2) clock.advance(15_000);
      },
    );
    expect(await s.cutAndResume()).toBeUndefined();
    expect(s.models.a?.sent).toHaveLength(1);
    expect(s.held('a')).toBe(0);
    expect(s.h.requestLines().at(-1)).toMatchObject({ reason: 'partial', route: 'a:cut@2' });
  });

  it('a request that asked for reasoning is never continued: the original failure stands', async () => {
    const s = setup(
      {},
      'continue-same-model',
      { a: CUT_THEN_REST },
      {
        messages: [{ role: 'user', content: 'hi' }],
        reasoning: { effort: 'low' },
      },
    );
    expect(await s.cutAndResume()).toBeUndefined();
    expect(s.models.a?.sent).toHaveLength(1);
    expect(s.h.requestLines().at(-1)).toMatchObject({
      reason: 'partial',
      failureClass: 'network',
      route: 'a:network',
    });
  });
});
