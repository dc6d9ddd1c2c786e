import type { CatalogRoute } from '../core/catalog/catalog.js';
import type { ChatModel } from '../core/chat/chat-model.js';
import { ProviderError } from '../core/failures/provider-error.js';
import type { RouteModel } from '../core/router/route-types.js';
import type { Clock } from '../core/time.js';
import { createAnthropicChatModel } from './anthropic/anthropic-chat-model.js';
import { type BedrockCredentials, createBedrockChatModel } from './bedrock/bedrock-chat-model.js';
import { createOpenAIChatModel } from './openai-compatible/openai-chat-model.js';
import { type AnswerLimits, DEFAULT_ANSWER_LIMITS } from './shared/answer-limits.js';
import { createVertexChatModel } from './vertex/vertex-chat-model.js';
import { vertexBaseURL } from './vertex/vertex-config-schema.js';
import { createVertexTokens, type VertexTokens } from './vertex/vertex-tokens.js';

/**
 * How the gateway gets what a provider needs; each deployment mode supplies its own.
 *
 * `apiKey` is called at the start of EVERY attempt on an OpenAI-compatible or Anthropic model (not once at
 * start-up), so it must be synchronous and cheap (a lookup in memory): a key that is created or
 * rotated later is used by the next attempt without rebuilding the models or their connection
 * pools. An implementation that refreshes keys does so in the background.
 */
export interface ProviderAccess {
  /**
   * The current API key of an OpenAI-compatible or Anthropic provider, or undefined when this process has none
   * (never configured, not written yet, or unreadable): the attempt then fails at once, without a
   * network call, as `not_configured` (the chain falls back; no breaker sample, no alert). A
   * blank string counts as none. For a `vertex` provider: the service-account key JSON.
   */
  apiKey(providerName: string): string | undefined;
  /**
   * Where the key should come from, for the operator (e.g. `OPENAI_API_KEY` or an SSM parameter
   * name). Never the key itself.
   */
  keyHint(providerName: string): string;
  /** Bedrock credentials; default: the AWS SDK's own provider chain. */
  bedrockCredentials?: BedrockCredentials | undefined;
}

/**
 * The key source of one model: the provider's current key, or a `not_configured` error naming
 * where the key should come from (never a value).
 */
function currentKey(entry: CatalogRoute, access: ProviderAccess): () => string {
  return () => {
    const key = access.apiKey(entry.providerName);
    // A blank key is no key: sent, it would read as a refused credential and quarantine the route.
    if (key !== undefined && key.trim() !== '') return key;
    throw new ProviderError({
      provider: entry.providerName,
      model: entry.key,
      failureClass: 'not_configured',
      message: `no API key for provider '${entry.providerName}' (set ${access.keyHint(entry.providerName)})`,
    });
  };
}

/** What the models of one process share: the access tokens of each `vertex` provider, the read bounds. */
interface SharedAuth {
  access: ProviderAccess;
  clock: Clock;
  vertex: Map<string, VertexTokens>;
  limits: AnswerLimits;
}

function vertexTokens(entry: CatalogRoute, shared: SharedAuth): VertexTokens {
  const { provider, providerName } = entry;
  let tokens = shared.vertex.get(providerName);
  if (!tokens && provider.type === 'vertex') {
    tokens = createVertexTokens({
      provider: providerName,
      credentials: () => shared.access.apiKey(providerName),
      hint: () => shared.access.keyHint(providerName),
      refreshBeforeExpiryMs: provider.refreshBeforeExpiryMs,
      tokenTimeoutMs: provider.tokenTimeoutMs,
      clock: shared.clock,
    });
    shared.vertex.set(providerName, tokens);
  }
  if (!tokens) throw new Error(`provider '${providerName}' is not a vertex provider`);
  return tokens;
}

function createChatModel(entry: CatalogRoute, shared: SharedAuth): ChatModel {
  const { provider } = entry;
  const { access, limits } = shared;
  if (provider.type === 'bedrock') {
    return createBedrockChatModel({
      key: entry.key,
      provider: entry.providerName,
      model: entry.model,
      region: provider.region,
      endpoint: provider.endpoint,
      credentials: access.bedrockCredentials,
      connectMs: entry.timeouts.connectMs,
      limits,
    });
  }
  if (provider.type === 'vertex') {
    return createVertexChatModel({
      key: entry.key,
      provider: entry.providerName,
      model: entry.model,
      baseURL: vertexBaseURL(provider),
      tokens: vertexTokens(entry, shared),
      connectMs: entry.timeouts.connectMs,
      limits,
    });
  }
  if (provider.type === 'anthropic') {
    return createAnthropicChatModel({
      key: entry.key,
      provider: entry.providerName,
      model: entry.model,
      baseURL: provider.baseURL,
      apiKey: currentKey(entry, access),
      // The provider's default, never more than the model may give.
      defaultMaxTokens: Math.min(provider.maxTokens, entry.maxOutputTokens ?? provider.maxTokens),
      connectMs: entry.timeouts.connectMs,
      limits,
    });
  }
  return createOpenAIChatModel({
    key: entry.key,
    provider: entry.providerName,
    model: entry.model,
    baseURL: provider.baseURL,
    apiKey: currentKey(entry, access),
    connectMs: entry.timeouts.connectMs,
    limits,
  });
}

/**
 * One callable model per catalog route, built once (each holds its connection pool); keys are
 * read per attempt. `limits` bounds what each attempt reads (the config's `limits`; default its defaults).
 */
export function createRouteModels(
  models: Iterable<CatalogRoute>,
  access: ProviderAccess,
  clock: Clock = { now: Date.now },
  limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
): Map<string, RouteModel> {
  const routes = new Map<string, RouteModel>();
  const shared: SharedAuth = { access, clock, vertex: new Map(), limits };
  for (const entry of models) {
    routes.set(entry.key, {
      model: createChatModel(entry, shared),
      timeouts: entry.timeouts,
      price: entry.price,
    });
  }
  return routes;
}
