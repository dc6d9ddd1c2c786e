import type { CatalogModel } from '../core/catalog/catalog.js';
import type { ChatModel } from '../core/chat/chat-model.js';
import { ProviderError } from '../core/failures/provider-error.js';
import type { RouteModel } from '../core/router/route-types.js';
import { type BedrockCredentials, createBedrockChatModel } from './bedrock/bedrock-chat-model.js';
import { createOpenAIChatModel } from './openai/openai-chat-model.js';

/** How the gateway gets what a provider needs; each deployment mode supplies its own. */
export interface ProviderAccess {
  /** The API key of an OpenAI-compatible provider, or undefined when none is configured. */
  apiKey(providerName: string): string | undefined;
  /** Where the key should come from, for the error a caller's operator sees (e.g. `OPENAI_API_KEY`). */
  keyHint(providerName: string): string;
  /** Bedrock credentials; default: the AWS SDK's own provider chain. */
  bedrockCredentials?: BedrockCredentials | undefined;
  /** Fetch for OpenAI-compatible calls; default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
}

/**
 * A model whose provider has no key: it fails at once, without a network call, as `upstream_auth`
 * (the breaker opens and an alert is raised), naming where the key should come from.
 */
function keylessModel(entry: CatalogModel, hint: string): ChatModel {
  const fail = () =>
    new ProviderError({
      provider: entry.providerName,
      model: entry.key,
      failureClass: 'upstream_auth',
      message: `no API key for provider '${entry.providerName}' (set ${hint})`,
    });
  return {
    key: entry.key,
    provider: entry.providerName,
    generate: async () => {
      throw fail();
    },
    // biome-ignore lint/correctness/useYield: a stream that fails before its first event
    async *stream() {
      throw fail();
    },
  };
}

function createChatModel(entry: CatalogModel, access: ProviderAccess): ChatModel {
  const { provider } = entry;
  if (provider.type === 'bedrock') {
    return createBedrockChatModel({
      key: entry.key,
      provider: entry.providerName,
      model: entry.model,
      region: provider.region,
      endpoint: provider.endpoint,
      credentials: access.bedrockCredentials,
    });
  }
  const apiKey = access.apiKey(entry.providerName);
  if (apiKey === undefined) return keylessModel(entry, access.keyHint(entry.providerName));
  return createOpenAIChatModel({
    key: entry.key,
    provider: entry.providerName,
    model: entry.model,
    baseURL: provider.baseURL,
    apiKey,
    fetch: access.fetch,
  });
}

/** One callable model per catalog entry, built once (each holds its connection pool). */
export function createRouteModels(
  models: Iterable<CatalogModel>,
  access: ProviderAccess,
): Map<string, RouteModel> {
  const routes = new Map<string, RouteModel>();
  for (const entry of models) {
    routes.set(entry.key, {
      model: createChatModel(entry, access),
      timeoutMs: entry.timeoutMs,
      price: entry.price,
    });
  }
  return routes;
}
