/**
 * `POST /v1/embeddings` of the OpenAI fake: deterministic vectors (the same text always gets the
 * same vector from the same model), with the same scriptable faults as chat completions.
 */
import * as z from 'zod';
import type { Exchange } from './exchange.js';
import type { FakeScript } from './fake-script.js';
import { describeIssues } from './fault.js';
import { invalidRequestBody, openaiErrorBody } from './openai-responses.js';

/** Vector length when neither the fault nor the request says: text-embedding-3-small's. */
export const FAKE_EMBEDDING_DIMENSIONS = 1536;

const text = z.string();
const tokens = z.array(z.number());

/** The fields of an embeddings request the fake relies on. */
export const embeddingsRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([text, z.array(text).min(1), tokens, z.array(tokens).min(1)]),
  dimensions: z.int().positive().nullish(),
  encoding_format: z.enum(['float', 'base64']).nullish(),
});

/** One deterministic unit-length vector for `seedText`, `length` numbers long. */
export function fakeVector(seedText: string, length: number): number[] {
  let seed = 2166136261;
  for (const char of seedText) seed = Math.imul(seed ^ (char.codePointAt(0) ?? 0), 16777619);
  const raw = Array.from({ length }, (_, i) => Math.sin(seed + i * 12.9898));
  const norm = Math.hypot(...raw) || 1;
  return raw.map((n) => Number((n / norm).toFixed(6)));
}

/**
 * What the fake's toy tokenizer reads an input as, for `echoPrompt`: a text as it is, a token
 * array as one character per token id (its Unicode code point). A real upstream decodes with its
 * vocabulary; either way the caller chooses the words, which is what the echo drill needs.
 */
export function decodeEmbeddingInput(input: string | readonly number[]): string {
  if (typeof input === 'string') return input;
  return input
    .map((id) => (Number.isInteger(id) && id >= 0 && id <= 0x10ffff ? String.fromCodePoint(id) : '\ufffd'))
    .join('');
}

function base64(vector: readonly number[]): string {
  const buffer = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => {
    buffer.writeFloatLE(value, index * 4);
  });
  return buffer.toString('base64');
}

export async function embeddings(ex: Exchange, script: FakeScript): Promise<void> {
  const raw = await ex.readJson();
  if (!raw.ok)
    return ex.json(400, invalidRequestBody('We could not parse the JSON body of your request.', null));
  const parsed = embeddingsRequestSchema.safeParse(raw.value);
  if (!parsed.success) {
    const param = parsed.error.issues[0]?.path.join('.') || null;
    return ex.json(400, invalidRequestBody(describeIssues(parsed.error), param));
  }
  const body = parsed.data;
  const inputs =
    typeof body.input === 'string' || body.input.every((item) => typeof item === 'number')
      ? [body.input as string | number[]]
      : (body.input as Array<string | number[]>);
  const record = ex.take(script, body.model, false);
  record.messages = inputs.map((input) => ({
    role: 'input',
    text: typeof input === 'string' ? input : JSON.stringify(input),
  }));
  // An upstream that quotes the input it could not embed: the last one, decoded.
  const last = inputs[inputs.length - 1] ?? '';
  const fault = record.fault.echoPrompt
    ? { ...record.fault, errorMessage: decodeEmbeddingInput(last) }
    : record.fault;
  if (!(await ex.beforeHeaders(fault))) return;
  const headers = { 'x-request-id': `req_fake_${record.seq}` } as Record<string, string>;
  if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
  const status = fault.status ?? 200;
  if (status >= 400) return ex.json(status, openaiErrorBody(status, body.model, fault), headers);
  if (fault.malformed === 'schema')
    return ex.json(200, { object: 'list', data: null, model: body.model }, headers);
  if (fault.malformed)
    return ex.text(200, '{"object":"list","data":[{"embedding":[0.1,', 'application/json', headers);

  const length = fault.dimensions ?? body.dimensions ?? FAKE_EMBEDDING_DIMENSIONS;
  const promptTokens = inputs.reduce(
    (n, input) => n + (typeof input === 'string' ? Math.max(1, Math.ceil(input.length / 4)) : input.length),
    0,
  );
  const answer = {
    object: 'list',
    data: inputs.map((input, index) => {
      const vector = fakeVector(`${body.model}\u0000${JSON.stringify(input)}`, length);
      return {
        object: 'embedding',
        index,
        embedding: body.encoding_format === 'base64' ? base64(vector) : vector,
      };
    }),
    model: body.model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
  if (fault.cutAfterChunks !== undefined) return ex.partialJson(answer, headers);
  ex.json(200, answer, headers);
}
