/**
 * A model whose adapter (and the provider SDK behind it) is imported on its first call, not when
 * the module graph loads: in the Lambda bundle each family's adapter is then a chunk that a cold
 * start never compiles unless a request reaches that family (docs/design.md#lazy-loading).
 */
import type { CallOptions, ChatModel, ChatRequest, ChatStreamEvent } from '../core/chat/chat-model.js';

/** What must be known of a model before its adapter loads: who it is and which optional calls it has. */
export interface LazyModelShape {
  /** Model key from the catalog. */
  key: string;
  /** Provider name from the config. */
  provider: string;
  /** The adapter implements `embed`. Default false. */
  embed?: boolean;
  /** The adapter implements `countTokens`. Default false. */
  countTokens?: boolean;
}

/**
 * A `ChatModel` that calls `load` on its first call and forwards every call to the model it
 * resolves to. One load serves all calls; a failed load is tried again on the next call.
 */
export function lazyChatModel(shape: LazyModelShape, load: () => Promise<ChatModel>): ChatModel {
  let loading: Promise<ChatModel> | undefined;
  const model = (): Promise<ChatModel> => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const optional = <K extends 'embed' | 'countTokens'>(
    name: K,
    loaded: ChatModel,
  ): NonNullable<ChatModel[K]> => {
    const method = loaded[name];
    if (!method) throw new Error(`model ${shape.key}: its adapter has no ${name}`);
    return method.bind(loaded) as NonNullable<ChatModel[K]>;
  };
  const lazy: ChatModel = {
    key: shape.key,
    provider: shape.provider,
    generate: async (request, options) => (await model()).generate(request, options),
    stream: (request, options) => streamOf(model, request, options),
  };
  if (shape.embed)
    lazy.embed = async (request, options) => optional('embed', await model())(request, options);
  if (shape.countTokens) {
    lazy.countTokens = async (request, options) => optional('countTokens', await model())(request, options);
  }
  return lazy;
}

async function* streamOf(
  model: () => Promise<ChatModel>,
  request: ChatRequest,
  options: CallOptions,
): AsyncIterable<ChatStreamEvent> {
  yield* (await model()).stream(request, options);
}
