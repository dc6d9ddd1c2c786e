/**
 * Normalisation across provider families (issue 17, seed 001): the same requests — a system
 * prompt, several turns, tools both ways, an output limit, stop sequences, streamed or not — go
 * through every pair of front door (chat completions, messages) and provider family
 * (OpenAI-compatible, Bedrock Converse, Anthropic Messages). Each row checks what the upstream
 * received, read back into one neutral view, and what the caller got back, read the same way.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Fault } from '../../lambda/dev/fakes/fault.js';
import { type GatewayHarness, startGatewayHarness } from '../helpers/gateway-harness.js';

type Door = 'chat' | 'messages';
type Family = 'openai' | 'bedrock' | 'anthropic';

/** One turn of a conversation, in neither door's shape. */
type Turn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text?: string; call?: { id: string; name: string; input: Record<string, unknown> } }
  | { role: 'tool'; id: string; text: string };

/** What the upstream should have received, whatever its wire format. */
interface Received {
  system: string;
  /** `user: …`, `assistant: …`, `assistant→name(args)`, `tool(id): …` in order. */
  turns: string[];
  stop?: string[] | undefined;
  tools: string[];
}

/** What the caller should get back, whatever the door. */
interface Answer {
  text: string;
  finish: 'stop' | 'length' | 'tool_calls';
  /** `name args` per tool call. */
  calls: string[];
  usage: { input: number; output: number };
}

interface Scenario {
  name: string;
  system?: string;
  turns: Turn[];
  maxTokens?: number;
  stop?: string[];
  tools?: boolean;
  fault: Fault;
  received: Received;
  answer: Answer;
}

const ANSWER = 'The answer is forty-two.'; // 24 chars: 6 output tokens
const LOOKUP = {
  name: 'lookup',
  description: 'Look it up',
  schema: { type: 'object', properties: { q: { type: 'string' } } },
};
const CALL = { id: 'call_1', name: 'lookup', input: { q: 'x' } };

// Input tokens are ceil(prompt chars / 4) in every fake: system, message text and tool results count.
const SCENARIOS: Scenario[] = [
  {
    name: 'a system prompt and one turn',
    system: 'Be brief.',
    turns: [{ role: 'user', text: 'Say hello' }],
    fault: { text: ANSWER },
    received: { system: 'Be brief.', turns: ['user: Say hello'], tools: [] },
    answer: { text: ANSWER, finish: 'stop', calls: [], usage: { input: 5, output: 6 } },
  },
  {
    name: 'several turns',
    turns: [
      { role: 'user', text: 'Hi' },
      { role: 'assistant', text: 'Hello!' },
      { role: 'user', text: 'Again' },
    ],
    fault: { text: ANSWER },
    received: { system: '', turns: ['user: Hi', 'assistant: Hello!', 'user: Again'], tools: [] },
    answer: { text: ANSWER, finish: 'stop', calls: [], usage: { input: 4, output: 6 } },
  },
  {
    name: 'an output limit',
    turns: [{ role: 'user', text: 'Tell me' }],
    maxTokens: 2,
    fault: { text: ANSWER },
    received: { system: '', turns: ['user: Tell me'], tools: [] },
    answer: { text: 'The answ', finish: 'length', calls: [], usage: { input: 2, output: 2 } },
  },
  {
    name: 'stop sequences',
    turns: [{ role: 'user', text: 'Tell me' }],
    stop: [' is', 'END'],
    fault: { text: ANSWER },
    received: { system: '', turns: ['user: Tell me'], stop: [' is', 'END'], tools: [] },
    answer: { text: 'The answer', finish: 'stop', calls: [], usage: { input: 2, output: 3 } },
  },
  {
    name: 'tools: the model calls one',
    turns: [{ role: 'user', text: 'Find x' }],
    tools: true,
    fault: { toolCall: { name: 'lookup', arguments: { q: 'x' } } },
    received: { system: '', turns: ['user: Find x'], tools: ['lookup'] },
    answer: { text: '', finish: 'tool_calls', calls: ['lookup {"q":"x"}'], usage: { input: 2, output: 4 } },
  },
  {
    name: 'tools: the result goes back',
    system: 'Use tools.',
    turns: [
      { role: 'user', text: 'Find x' },
      { role: 'assistant', call: CALL },
      { role: 'tool', id: 'call_1', text: '{"found":true}' },
    ],
    tools: true,
    fault: { text: ANSWER },
    received: {
      system: 'Use tools.',
      turns: ['user: Find x', 'assistant→lookup({"q":"x"})', 'tool(call_1): {"found":true}'],
      tools: ['lookup'],
    },
    answer: { text: ANSWER, finish: 'stop', calls: [], usage: { input: 8, output: 6 } },
  },
];

/** The model key of each family in the harness, and its raw id at the fake. */
const MODELS: Record<Family, { key: string; raw: string }> = {
  openai: { key: 'a', raw: 'model-a' },
  bedrock: { key: 'br', raw: 'bedrock-model' },
  anthropic: { key: 'an', raw: 'claude-model' },
};
/** `max_tokens` the messages door always sends (Anthropic requires one) when a scenario sets none. */
const MESSAGES_MAX_TOKENS = 1000;
/** The Anthropic provider's configured default (`providers.an.maxTokens`). */
const ANTHROPIC_DEFAULT = 333;

// ---- the two doors: the scenario in each wire format ----

function chatBody(s: Scenario, model: string, stream: boolean) {
  const messages: unknown[] = s.system ? [{ role: 'system', content: s.system }] : [];
  for (const turn of s.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: turn.text });
    else if (turn.role === 'tool') messages.push({ role: 'tool', tool_call_id: turn.id, content: turn.text });
    else {
      const calls = turn.call
        ? [
            {
              id: turn.call.id,
              type: 'function',
              function: { name: turn.call.name, arguments: JSON.stringify(turn.call.input) },
            },
          ]
        : undefined;
      messages.push({
        role: 'assistant',
        content: turn.text ?? null,
        ...(calls ? { tool_calls: calls } : {}),
      });
    }
  }
  return {
    model,
    messages,
    ...(s.maxTokens ? { max_tokens: s.maxTokens } : {}),
    ...(s.stop ? { stop: s.stop } : {}),
    ...(s.tools
      ? {
          tools: [
            {
              type: 'function',
              function: { name: LOOKUP.name, description: LOOKUP.description, parameters: LOOKUP.schema },
            },
          ],
          tool_choice: 'auto',
        }
      : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

function messagesBody(s: Scenario, model: string, stream: boolean) {
  const messages: { role: string; content: unknown[] }[] = [];
  const add = (role: 'user' | 'assistant', block: unknown) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  for (const turn of s.turns) {
    if (turn.role === 'user') add('user', { type: 'text', text: turn.text });
    else if (turn.role === 'tool')
      add('user', { type: 'tool_result', tool_use_id: turn.id, content: turn.text });
    else {
      if (turn.text) add('assistant', { type: 'text', text: turn.text });
      if (turn.call) add('assistant', { type: 'tool_use', ...turn.call });
    }
  }
  return {
    model,
    max_tokens: s.maxTokens ?? MESSAGES_MAX_TOKENS,
    messages,
    ...(s.system ? { system: s.system } : {}),
    ...(s.stop ? { stop_sequences: s.stop } : {}),
    ...(s.tools
      ? {
          tools: [{ name: LOOKUP.name, description: LOOKUP.description, input_schema: LOOKUP.schema }],
          tool_choice: { type: 'auto' },
        }
      : {}),
    ...(stream ? { stream: true } : {}),
  };
}

// ---- the three families: what the fake received, read back ----

// biome-ignore lint/suspicious/noExplicitAny: wire bodies of three protocols, read back field by field
type Json = Record<string, any>;

function fromOpenAI(body: Json): Received & { maxTokens: unknown } {
  const turns: string[] = [];
  for (const m of body.messages as Json[]) {
    if (m.role === 'user') turns.push(`user: ${m.content}`);
    if (m.role === 'tool') turns.push(`tool(${m.tool_call_id}): ${m.content}`);
    if (m.role === 'assistant') {
      if (m.content) turns.push(`assistant: ${m.content}`);
      for (const c of m.tool_calls ?? []) turns.push(`assistant→${c.function.name}(${c.function.arguments})`);
    }
  }
  return {
    system: (body.messages as Json[])
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n'),
    turns,
    stop: body.stop,
    tools: (body.tools ?? []).map((t: Json) => t.function.name),
    maxTokens: body.max_tokens ?? body.max_completion_tokens,
  };
}

function fromBedrock(body: Json): Received & { maxTokens: unknown } {
  const turns: string[] = [];
  for (const m of body.messages as Json[]) {
    for (const b of m.content as Json[]) {
      if (b.text !== undefined) turns.push(`${m.role}: ${b.text}`);
      if (b.toolUse) turns.push(`assistant→${b.toolUse.name}(${JSON.stringify(b.toolUse.input)})`);
      if (b.toolResult) turns.push(`tool(${b.toolResult.toolUseId}): ${b.toolResult.content[0].text}`);
    }
  }
  return {
    system: (body.system ?? []).map((b: Json) => b.text).join('\n\n'),
    turns,
    stop: body.inferenceConfig?.stopSequences,
    tools: (body.toolConfig?.tools ?? []).map((t: Json) => t.toolSpec.name),
    maxTokens: body.inferenceConfig?.maxTokens,
  };
}

function fromAnthropic(body: Json): Received & { maxTokens: unknown } {
  const turns: string[] = [];
  for (const m of body.messages as Json[]) {
    const blocks: Json[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) {
      if (b.type === 'text') turns.push(`${m.role}: ${b.text}`);
      if (b.type === 'tool_use') turns.push(`assistant→${b.name}(${JSON.stringify(b.input)})`);
      if (b.type === 'tool_result') turns.push(`tool(${b.tool_use_id}): ${b.content}`);
    }
  }
  return {
    system: body.system ?? '',
    turns,
    stop: body.stop_sequences,
    tools: (body.tools ?? []).map((t: Json) => t.name),
    maxTokens: body.max_tokens,
  };
}

const READ_BACK: Record<Family, (body: Json) => Received & { maxTokens: unknown }> = {
  openai: fromOpenAI,
  bedrock: fromBedrock,
  anthropic: fromAnthropic,
};

// ---- what the caller got, read back ----

const FINISH: Record<string, Answer['finish']> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
};

function chatAnswer(body: Json): Answer {
  const message = body.choices[0].message;
  return {
    text: message.content ?? '',
    finish: FINISH[body.choices[0].finish_reason] as Answer['finish'],
    calls: (message.tool_calls ?? []).map((c: Json) => `${c.function.name} ${c.function.arguments}`),
    usage: { input: body.usage.prompt_tokens, output: body.usage.completion_tokens },
  };
}

function messagesAnswer(body: Json): Answer {
  const blocks = body.content as Json[];
  return {
    text: blocks
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join(''),
    finish: FINISH[body.stop_reason] as Answer['finish'],
    calls: blocks.filter((b) => b.type === 'tool_use').map((b) => `${b.name} ${JSON.stringify(b.input)}`),
    usage: messagesUsage(body.usage),
  };
}

const messagesUsage = (u: Json) => ({
  input: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
  output: u.output_tokens,
});

/** The data of each server-sent event, parsed; `[DONE]` ends them. */
function sseData(text: string): Json[] {
  return text
    .split('\n\n')
    .flatMap((frame) => frame.split('\n').filter((line) => line.startsWith('data: ')))
    .map((line) => line.slice('data: '.length))
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data));
}

function chatStreamAnswer(text: string): Answer {
  const answer: Answer = { text: '', finish: 'stop', calls: [], usage: { input: -1, output: -1 } };
  const calls: { name: string; args: string }[] = [];
  for (const chunk of sseData(text)) {
    if (chunk.usage)
      answer.usage = { input: chunk.usage.prompt_tokens, output: chunk.usage.completion_tokens };
    const choice = chunk.choices[0];
    if (!choice) continue;
    answer.text += choice.delta.content ?? '';
    for (const c of choice.delta.tool_calls ?? []) {
      calls[c.index] ??= { name: '', args: '' };
      const call = calls[c.index] as { name: string; args: string };
      call.name += c.function?.name ?? '';
      call.args += c.function?.arguments ?? '';
    }
    if (choice.finish_reason) answer.finish = FINISH[choice.finish_reason] as Answer['finish'];
  }
  answer.calls = calls.map((c) => `${c.name} ${c.args}`);
  return answer;
}

function messagesStreamAnswer(text: string): Answer {
  const answer: Answer = { text: '', finish: 'stop', calls: [], usage: { input: -1, output: -1 } };
  const calls = new Map<number, { name: string; args: string }>();
  const types: string[] = [];
  for (const event of sseData(text)) {
    types.push(event.type);
    if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
      calls.set(event.index, { name: event.content_block.name, args: '' });
    }
    if (event.type === 'content_block_delta') {
      if (event.delta.type === 'text_delta') answer.text += event.delta.text;
      const call = calls.get(event.index);
      if (call && event.delta.type === 'input_json_delta') call.args += event.delta.partial_json;
    }
    if (event.type === 'message_delta') {
      answer.finish = FINISH[event.delta.stop_reason] as Answer['finish'];
      answer.usage = messagesUsage(event.usage);
    }
  }
  expect(types[0]).toBe('message_start');
  expect(types.at(-1)).toBe('message_stop');
  answer.calls = [...calls.values()].map((c) => `${c.name} ${c.args}`);
  return answer;
}

// ---- the suite ----

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness(
    {},
    {
      anthropic: true,
      configure: (config) => {
        Object.assign((config.providers as Record<string, object>).an ?? {}, {
          maxTokens: ANTHROPIC_DEFAULT,
        });
      },
    },
  );
});
afterAll(() => h.close());
beforeEach(() => {
  h.openai.reset();
  h.bedrock.reset();
  h.anthropic.reset();
});

const FAKES = (family: Family) => ({ openai: h.openai, bedrock: h.bedrock, anthropic: h.anthropic })[family];

const ROWS = SCENARIOS.flatMap((scenario) =>
  (['chat', 'messages'] as Door[]).flatMap((door) =>
    (['openai', 'bedrock', 'anthropic'] as Family[]).flatMap((family) =>
      [false, true].map((stream) => ({ scenario, door, family, stream })),
    ),
  ),
);

describe('the same requests through every front door and provider family', () => {
  it.each(ROWS)(
    '$scenario.name: $door → $family (stream: $stream)',
    async ({ scenario, door, family, stream }) => {
      const { key, raw } = MODELS[family];
      const fake = FAKES(family);
      fake.script(raw, [scenario.fault]);
      const res =
        door === 'chat'
          ? await h.post(chatBody(scenario, key, stream))
          : await h.postMessages(messagesBody(scenario, key, stream));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-switchyard-model')).toBe(key);

      const answer =
        door === 'chat'
          ? stream
            ? chatStreamAnswer(await res.text())
            : chatAnswer(await res.json())
          : stream
            ? messagesStreamAnswer(await res.text())
            : messagesAnswer(await res.json());
      expect(answer).toEqual(scenario.answer);

      expect(fake.requests).toHaveLength(1);
      const { maxTokens, ...received } = READ_BACK[family](fake.requests[0]?.body as Json);
      expect(received).toEqual({ ...scenario.received, stop: scenario.received.stop });
      // The output limit the caller set; else the messages door's mandatory one; else the
      // Anthropic provider's configured default; else none at all.
      const limit =
        scenario.maxTokens ??
        (door === 'messages' ? MESSAGES_MAX_TOKENS : family === 'anthropic' ? ANTHROPIC_DEFAULT : undefined);
      expect(maxTokens).toBe(limit);
    },
  );
});
