/**
 * `POST /v1/messages/count_tokens` on the Anthropic door: the input tokens a Messages request would
 * cost on its pipeline or chain, as `{"input_tokens": n}`. The chain's first route counts with its
 * provider's own endpoint where its family has one (Anthropic's); otherwise the count is the
 * documented estimate (docs/http-api.md#count-tokens). `x-switchyard-token-count` says which
 * (`upstream` or `estimate`), and `x-switchyard-model` names the model key that counted. Bounds
 * and target resolution are the Messages request's; a count is not admitted or billed, and its
 * refusals are in Anthropic's envelope like every answer under `/v1/messages`.
 */
import { Hono } from 'hono';
import type { HttpEnv } from '../../http/http-env.js';
import { jsonBody } from '../../http/json-body.js';
import type { DoorDeps } from '../shared/door.js';
import { neutralBody, resolvesTarget, withinBounds } from '../shared/door-lifecycle.js';
import {
  type CountedMessagesBody,
  countTokensBodySchema,
  messagesDemand,
  messagesToChatRequest,
} from './messages-request-schema.js';

const neutral = (body: CountedMessagesBody) => ({
  model: body.model,
  demand: messagesDemand(body),
  request: messagesToChatRequest(body),
  streamed: false,
});

/** The sub-app: `POST /` under `/v1/messages/count_tokens`. */
export function createCountTokensApp(deps: DoorDeps): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.post(
    '/',
    jsonBody(countTokensBodySchema, deps.bounds),
    neutralBody(neutral),
    withinBounds(deps.lifecycle, 'chat'),
    resolvesTarget(deps.lifecycle, 'chat'),
    async (c) => {
      const { target, neutral: read } = c.var;
      const count = await deps.gateway.countTokens(target, read.request, {
        inputChars: read.demand.inputChars,
        charsPerToken: deps.catalog.config.admission.charsPerToken,
        signal: c.req.raw.signal,
      });
      const headers: Record<string, string> = { 'x-switchyard-token-count': count.source };
      if (count.model !== undefined) headers['x-switchyard-model'] = count.model;
      return c.json({ input_tokens: count.inputTokens }, 200, headers);
    },
  );
  return app;
}
