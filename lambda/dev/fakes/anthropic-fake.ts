/**
 * A scriptable fake of Anthropic's Messages API: `POST /v1/messages` (JSON and server-sent
 * events) and `POST /v1/messages/count_tokens` (the fakes' tokenizer over the prompt), with errors
 * in Anthropic's envelope so that the official SDK raises the right class.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import {
  anthropicLastUserText,
  anthropicMessages,
  anthropicPrefill,
  anthropicPromptChars,
  countTokensRequestSchema,
  messagesRequestSchema,
} from './anthropic-request.js';
import {
  type AnthropicAnswerMeta,
  anthropicErrorBody,
  anthropicInvalidRequest,
  malformedEvents,
  malformedMessage,
  messageBody,
  streamEvents,
} from './anthropic-responses.js';
import type { Exchange } from './exchange.js';
import { planAnswer, tokensFor } from './fake-answer.js';
import type { FakeScript } from './fake-script.js';
import { startFakeServer } from './fake-server.js';
import type { FakeUpstream, FakeUpstreamOptions } from './fake-upstream.js';
import { describeIssues, streamCut } from './fault.js';

const SSE_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
};

/**
 * Starts the Anthropic fake. `url` is the API root, ready for
 * `new Anthropic({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 })`.
 */
export function startFakeAnthropic(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  return startFakeServer({ basePath: '', handle: handleAnthropic }, options);
}

async function handleAnthropic(ex: Exchange, script: FakeScript): Promise<void> {
  const route = `${ex.req.method ?? 'GET'} ${ex.path}`;
  if (route === 'POST /v1/messages') return messages(ex, script);
  if (route === 'POST /v1/messages/count_tokens') return countTokens(ex, script);
  ex.json(404, { type: 'error', error: { type: 'not_found_error', message: `Not found: ${route}` } });
}

async function messages(ex: Exchange, script: FakeScript): Promise<void> {
  const raw = await ex.readJson();
  if (!raw.ok) {
    if (raw.reason === 'too_large') {
      return ex.json(413, {
        type: 'error',
        error: { type: 'request_too_large', message: 'Request too large.' },
      });
    }
    return ex.json(400, anthropicInvalidRequest('The request body is not valid JSON.'));
  }
  const parsed = messagesRequestSchema.safeParse(raw.value);
  if (!parsed.success) return ex.json(400, anthropicInvalidRequest(describeIssues(parsed.error)));
  const body = parsed.data;
  const stream = body.stream === true;
  const record = ex.take(script, body.model, stream);
  record.messages = anthropicMessages(body);
  record.body = raw.value;
  const fault = record.fault.echoPrompt
    ? { ...record.fault, errorMessage: anthropicLastUserText(body) }
    : record.fault;
  if (!(await ex.beforeHeaders(fault))) return;

  const requestId = `req_fake_${record.seq}`;
  const headers: OutgoingHttpHeaders = { 'request-id': requestId };
  if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
  const status = fault.status ?? 200;
  const midStreamError = stream && fault.cutAfterChunks !== undefined && status >= 400;
  if (status >= 400 && !midStreamError) {
    return ex.json(status, anthropicErrorBody(status, body.model, fault, requestId), headers);
  }

  const prefill = anthropicPrefill(body);
  // As the Messages API does: a prefill that ends in whitespace is refused.
  if (prefill !== undefined && prefill !== prefill.trimEnd()) {
    return ex.json(
      400,
      anthropicInvalidRequest('messages: final assistant content cannot end with trailing whitespace'),
      headers,
    );
  }
  const meta: AnthropicAnswerMeta = { id: `msg_fake_${record.seq}`, model: body.model, seq: record.seq };
  if (fault.malformed) {
    const kind = fault.malformed === 'schema' ? 'schema' : 'unparseable';
    if (!stream) return ex.text(200, malformedMessage(kind, meta), 'application/json', headers);
    ex.writeHead(200, { ...headers, ...SSE_HEADERS });
    return ex.frames(malformedEvents(kind), 0, 'end');
  }

  const plan = planAnswer({
    model: body.model,
    fault,
    seq: record.seq,
    promptChars: anthropicPromptChars(body),
    maxTokens: body.max_tokens,
    stop: body.stop_sequences,
    toolsOffered: (body.tools?.length ?? 0) > 0,
    toolIdPrefix: 'toolu_',
    prefill,
  });
  if (!stream) {
    const answer = messageBody(meta, plan, fault);
    if (fault.cutAfterChunks !== undefined) return ex.partialJson(answer, headers);
    return ex.json(status, answer, headers);
  }
  const cut = streamCut(fault, midStreamError);
  const frames = streamEvents(meta, plan, fault, {
    cutAfterChunks: cut.afterChunks,
    error: midStreamError ? anthropicErrorBody(status, body.model, fault) : undefined,
  });
  if (cut.malformed) frames.push(...malformedEvents('unparseable'));
  ex.writeHead(200, { ...headers, ...SSE_HEADERS });
  await ex.frames(frames, fault.chunkDelayMs ?? 0, cut.ending);
}

/**
 * `POST /v1/messages/count_tokens`: `{input_tokens}` by the fakes' tokenizer (the prompt's
 * characters / 4, as every fake's usage counts them), or the scripted fault's error. Recorded like a
 * message request, with its `path`, so a test can tell the two apart.
 */
async function countTokens(ex: Exchange, script: FakeScript): Promise<void> {
  const raw = await ex.readJson();
  if (!raw.ok) return ex.json(400, anthropicInvalidRequest('The request body is not valid JSON.'));
  const parsed = countTokensRequestSchema.safeParse(raw.value);
  if (!parsed.success) return ex.json(400, anthropicInvalidRequest(describeIssues(parsed.error)));
  const body = parsed.data;
  const record = ex.take(script, body.model, false);
  record.path = ex.path;
  record.messages = anthropicMessages(body);
  record.body = raw.value;
  const { fault } = record;
  if (!(await ex.beforeHeaders(fault))) return;
  const status = fault.status ?? 200;
  if (status >= 400) return ex.json(status, anthropicErrorBody(status, body.model, fault));
  ex.json(200, { input_tokens: tokensFor(anthropicPromptChars(body)) });
}
