/**
 * A scriptable fake of the Bedrock Runtime Converse API: `POST /model/{modelId}/converse` (JSON)
 * and `POST /model/{modelId}/converse-stream` (AWS event stream), with errors shaped so that the
 * real `@aws-sdk/client-bedrock-runtime` raises the right exception class.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import {
  bedrockLastUserText,
  bedrockPrefill,
  bedrockPromptChars,
  converseRequestSchema,
} from './bedrock-request.js';
import {
  bedrockError,
  converseBody,
  converseStreamFrames,
  malformedConverse,
  malformedConverseStream,
} from './bedrock-responses.js';
import type { Exchange } from './exchange.js';
import { planAnswer } from './fake-answer.js';
import type { FakeScript } from './fake-script.js';
import { startFakeServer } from './fake-server.js';
import type { FakeUpstream, FakeUpstreamOptions } from './fake-upstream.js';
import { describeIssues, streamCut } from './fault.js';

const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream)$/;

const EVENT_STREAM_HEADERS: OutgoingHttpHeaders = { 'content-type': 'application/vnd.amazon.eventstream' };

/**
 * Starts the Bedrock Converse fake. `url` is the endpoint root, ready for
 * `new BedrockRuntimeClient({ endpoint: fake.url, requestHandler: new NodeHttpHandler(), ... })`.
 */
export function startFakeBedrock(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  return startFakeServer({ basePath: '', handle: handleBedrock }, options);
}

/** Answers an AWS-style error: the exception name in `x-amzn-errortype`, `{"message"}` as body. */
function sendError(
  ex: Exchange,
  status: number,
  error: { name: string; message: string },
  headers: OutgoingHttpHeaders = {},
): void {
  ex.json(status, { message: error.message }, { ...headers, 'x-amzn-errortype': error.name });
}

async function handleBedrock(ex: Exchange, script: FakeScript): Promise<void> {
  const match = ex.req.method === 'POST' ? ROUTE.exec(ex.path) : null;
  if (!match) {
    return sendError(ex, 404, {
      name: 'UnknownOperationException',
      message: `Unknown operation ${ex.req.method} ${ex.path}.`,
    });
  }
  let model: string;
  try {
    // The SDK percent-encodes the id: `meta.llama3-3-70b-instruct-v1%3A0`, ARNs with `%2F`.
    model = decodeURIComponent(match[1] as string);
  } catch {
    return sendError(ex, 400, { name: 'ValidationException', message: 'The model identifier is not valid.' });
  }
  const stream = match[2] === 'converse-stream';

  const raw = await ex.readJson();
  if (!raw.ok) {
    const message =
      raw.reason === 'too_large' ? 'Request body too large.' : 'Request body is not valid JSON.';
    return sendError(ex, raw.reason === 'too_large' ? 413 : 400, { name: 'ValidationException', message });
  }
  const parsed = converseRequestSchema.safeParse(raw.value);
  if (!parsed.success) {
    return sendError(ex, 400, { name: 'ValidationException', message: describeIssues(parsed.error) });
  }
  const body = parsed.data;
  const record = ex.take(script, model, stream);
  record.body = raw.value;
  const fault = record.fault.echoPrompt
    ? { ...record.fault, errorMessage: bedrockLastUserText(body) }
    : record.fault;
  if (!(await ex.beforeHeaders(fault))) return;

  const headers: OutgoingHttpHeaders = { 'x-amzn-requestid': `fake-${record.seq}` };
  if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
  const status = fault.status ?? 200;
  const midStreamError = stream && fault.cutAfterChunks !== undefined && status >= 400;
  if (status >= 400 && !midStreamError) return sendError(ex, status, bedrockError(status, fault), headers);

  if (fault.malformed) {
    const kind = fault.malformed === 'schema' ? 'schema' : 'unparseable';
    if (!stream) return ex.text(200, malformedConverse(kind), 'application/json', headers);
    ex.writeHead(200, { ...headers, ...EVENT_STREAM_HEADERS });
    return ex.frames(malformedConverseStream(kind), 0, 'end');
  }

  const plan = planAnswer({
    model,
    fault,
    seq: record.seq,
    promptChars: bedrockPromptChars(body),
    maxTokens: body.inferenceConfig?.maxTokens,
    stop: body.inferenceConfig?.stopSequences,
    toolsOffered: (body.toolConfig?.tools.length ?? 0) > 0,
    toolIdPrefix: 'tooluse_',
    prefill: bedrockPrefill(body),
  });
  const latencyMs = Date.now() - record.at;
  if (!stream) {
    const answer = converseBody(plan, latencyMs, fault, record.seq);
    if (fault.cutAfterChunks !== undefined) return ex.partialJson(answer, headers);
    return ex.json(status, answer, headers);
  }
  const cut = streamCut(fault, midStreamError);
  const frames = converseStreamFrames(
    plan,
    latencyMs,
    {
      cutAfterChunks: cut.afterChunks,
      error: midStreamError ? bedrockError(status, fault) : undefined,
    },
    fault,
    record.seq,
  );
  ex.writeHead(midStreamError ? 200 : status, { ...headers, ...EVENT_STREAM_HEADERS });
  await ex.frames(frames, fault.chunkDelayMs ?? 0, cut.ending);
}
