/**
 * A scriptable fake of an OpenAI-compatible endpoint: `POST /v1/chat/completions` (JSON and SSE),
 * `POST /v1/embeddings` and `GET /v1/models`, answering deterministically unless a fault says otherwise.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { Exchange } from './exchange.js';
import { planAnswer } from './fake-answer.js';
import type { FakeScript } from './fake-script.js';
import { startFakeServer } from './fake-server.js';
import type { FakeUpstream, FakeUpstreamOptions } from './fake-upstream.js';
import { describeIssues, streamCut } from './fault.js';
import { embeddings } from './openai-embeddings.js';
import {
  type ChatRequestBody,
  chatRequestSchema,
  openaiLastUserText,
  openaiMessages,
  openaiPromptChars,
  openaiStops,
} from './openai-request.js';
import {
  completionBody,
  invalidRequestBody,
  type LogprobsAsk,
  malformedCompletion,
  malformedStream,
  type OpenAIAnswerMeta,
  openaiErrorBody,
  streamFrames,
} from './openai-responses.js';

const SSE_HEADERS: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
};

/**
 * Starts the OpenAI-compatible fake. `url` ends with `/v1`, ready for
 * `new OpenAI({ baseURL: fake.url, apiKey: 'test', maxRetries: 0 })`.
 */
export function startFakeOpenAI(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  return startFakeServer({ basePath: '/v1', handle: handleOpenAI }, options);
}

async function handleOpenAI(ex: Exchange, script: FakeScript): Promise<void> {
  const route = `${ex.req.method ?? 'GET'} ${ex.path}`;
  if (route === 'POST /v1/chat/completions') return chatCompletions(ex, script);
  if (route === 'POST /v1/embeddings') return embeddings(ex, script);
  if (route === 'GET /v1/models') {
    const data = script
      .knownModels()
      .map((id) => ({ id, object: 'model', created: 0, owned_by: 'switchyard-fake' }));
    return ex.json(200, { object: 'list', data });
  }
  ex.json(404, invalidRequestBody(`Unknown request URL: ${route}.`, null));
}

async function chatCompletions(ex: Exchange, script: FakeScript): Promise<void> {
  const raw = await ex.readJson();
  if (!raw.ok) {
    const message =
      raw.reason === 'too_large'
        ? 'Request body too large.'
        : "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)";
    return ex.json(raw.reason === 'too_large' ? 413 : 400, invalidRequestBody(message, null));
  }
  const parsed = chatRequestSchema.safeParse(raw.value);
  if (!parsed.success) {
    const param = parsed.error.issues[0]?.path.join('.') || null;
    return ex.json(400, invalidRequestBody(describeIssues(parsed.error), param));
  }
  const body = parsed.data;
  const stream = body.stream === true;
  const record = ex.take(script, body.model, stream);
  record.messages = openaiMessages(body);
  record.body = raw.value;
  record.responseFormat = body.response_format ?? undefined;
  const fault = record.fault.echoPrompt
    ? { ...record.fault, errorMessage: openaiLastUserText(body) }
    : record.fault;
  if (!(await ex.beforeHeaders(fault))) return;

  const headers: OutgoingHttpHeaders = { 'x-request-id': `req_fake_${record.seq}` };
  if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
  const status = fault.status ?? 200;
  const midStreamError = stream && fault.cutAfterChunks !== undefined && status >= 400;
  if (status >= 400 && !midStreamError)
    return ex.json(status, openaiErrorBody(status, body.model, fault), headers);

  const meta: OpenAIAnswerMeta = {
    id: `chatcmpl-fake-${record.seq}`,
    created: Math.floor(record.at / 1000),
    model: body.model,
  };
  if (fault.malformed) {
    const kind = fault.malformed === 'schema' ? 'schema' : 'unparseable';
    if (!stream) return ex.text(200, malformedCompletion(kind, meta), 'application/json', headers);
    ex.writeHead(200, { ...headers, ...SSE_HEADERS });
    return ex.frames(malformedStream(kind, meta), 0, 'end');
  }

  const plan = planAnswer({
    model: body.model,
    fault,
    seq: record.seq,
    promptChars: openaiPromptChars(body),
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    stop: openaiStops(body),
    toolsOffered: (body.tools?.length ?? 0) > 0,
    toolIdPrefix: 'call_',
  });
  const writingMs = fault.tokensPerSec ? Math.ceil((plan.completionTokens * 1000) / fault.tokensPerSec) : 0;
  if (!stream) {
    ex.delayBodyBy(writingMs);
    const completion = completionBody(meta, plan, fault, logprobsAsk(body));
    if (fault.cutAfterChunks !== undefined) return ex.partialJson(completion, headers);
    return ex.json(status, completion, headers);
  }
  const cut = streamCut(fault, midStreamError);
  const frames = streamFrames(
    meta,
    plan,
    {
      includeUsage: body.stream_options?.include_usage === true,
      logprobs: logprobsAsk(body),
      cutAfterChunks: cut.afterChunks,
      error: midStreamError ? openaiErrorBody(status, body.model, fault) : undefined,
    },
    fault,
  );
  if (cut.malformed) frames.push(malformedStream('unparseable', meta)[0] as string);
  ex.writeHead(midStreamError ? 200 : status, { ...headers, ...SSE_HEADERS });
  const chunkDelayMs = fault.chunkDelayMs ?? Math.ceil(writingMs / Math.max(1, plan.chunks.length));
  await ex.frames(frames, chunkDelayMs, cut.ending);
}

/** What the request asked of log probabilities (`logprobs: true`, `top_logprobs`). */
function logprobsAsk(body: ChatRequestBody): LogprobsAsk {
  return body.logprobs === true ? { top: body.top_logprobs ?? 0 } : undefined;
}
