/**
 * The instant upstream of the overhead bench: an OpenAI-compatible `POST /v1/chat/completions`
 * that answers every request at once with the same precomputed completion.
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

/** A running instant upstream. */
export interface InstantUpstream {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Starts the instant upstream on 127.0.0.1 (port 0 = a free port). */
export async function startInstantUpstream(port = 0): Promise<InstantUpstream> {
  const server = createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => {
      if (req.method === 'POST' && req.url?.endsWith('/chat/completions')) {
        res.writeHead(200, HEADERS);
        res.end(COMPLETION);
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
