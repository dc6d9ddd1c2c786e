/**
 * The instant upstream of the overhead bench: an OpenAI-compatible `POST /v1/chat/completions`
 * that answers every request at once with the same precomputed completion, or, when the body
 * asks for `"stream":true`, the same precomputed stream of server-sent events in one write. Every
 * path under `/down/` answers 503, for a route that is down.
 *
 * The project's scriptable fake (`startFakeOpenAI`) validates each body with zod, consults its
 * fault script, plans the answer and logs the request. That is cheap, but it is work done in the
 * upstream, and every target of the bench pays it; with nothing to do, this upstream makes the
 * differences between targets as visible as possible. It still reads the whole request body
 * before answering, as any real server does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The raw model id the instant upstream claims to be. */
export const INSTANT_MODEL = 'instant-model';

/** A complete, schema-valid `chat.completion`: what the SDK and our mapper expect. */
const COMPLETION = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-instant',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: INSTANT_MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: 'ok', refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  }),
);

const HEADERS = {
  'content-type': 'application/json',
  'content-length': String(COMPLETION.length),
};

/** Content chunks of the streamed answer (plus the role chunk, the finish and the usage chunk). */
export const STREAM_TEXT_CHUNKS = 20;

const chunk = (choices: unknown[], usage?: unknown) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-instant',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: INSTANT_MODEL,
    choices,
    ...(usage === undefined ? {} : { usage }),
  })}\n\n`;

/** A complete streamed answer, as an OpenAI server sends it with `include_usage`. */
const STREAM = Buffer.from(
  [
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    ...Array.from({ length: STREAM_TEXT_CHUNKS }, (_, i) =>
      chunk([{ index: 0, delta: { content: `w${i} ` }, finish_reason: null }]),
    ),
    chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
    chunk([], { prompt_tokens: 3, completion_tokens: STREAM_TEXT_CHUNKS, total_tokens: 23 }),
    'data: [DONE]\n\n',
  ].join(''),
);

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'content-length': String(STREAM.length),
};

/** What every path under `/down/` answers: a route that is down (for the fallback row). */
const DOWN = Buffer.from(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }));
const DOWN_HEADERS = { 'content-type': 'application/json', 'content-length': String(DOWN.length) };

/** A request asks for a stream (the bench's bodies are compact JSON). */
const wantsStream = (body: string) => body.includes('"stream":true');

/** A running instant upstream. */
export interface InstantUpstream {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Starts the instant upstream on 127.0.0.1 (port 0 = a free port). */
export async function startInstantUpstream(port = 0): Promise<InstantUpstream> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (part: string) => {
      body += part;
    });
    req.on('end', () => {
      if (req.url?.startsWith('/down/')) {
        res.writeHead(503, DOWN_HEADERS);
        res.end(DOWN);
      } else if (req.method === 'POST' && req.url?.endsWith('/chat/completions')) {
        const stream = wantsStream(body);
        res.writeHead(200, stream ? STREAM_HEADERS : HEADERS);
        res.end(stream ? STREAM : COMPLETION);
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found"}}');
      }
    });
  });
  // Longer than any client's idle keep-alive, so that no client races the server's close.
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
