import { withOverrides } from '../core/capabilities/capability.js';
import type { CatalogRoute } from '../core/catalog/catalog.js';
import type { ChatModel } from '../core/chat/chat-model.js';
import type { RouteModel } from '../core/router/route-types.js';
import type { Clock } from '../core/time.js';
import type { FamilyContext, ProviderAccess } from './provider-family.js';
import { familyOf } from './registry.js';
import { type AnswerLimits, DEFAULT_ANSWER_LIMITS } from './shared/answer-limits.js';

export type { ProviderAccess } from './provider-family.js';

/**
 * One callable model per catalog route, built once (each holds its connection pool) by the
 * family its provider's `type` names, with what it can carry (the family's capabilities under the
 * model's overrides); keys are read per attempt. `limits` bounds what each
 * attempt reads (the config's `limits`; default its defaults).
 */
export function createRouteModels(
  models: Iterable<CatalogRoute>,
  access: ProviderAccess,
  clock: Clock = { now: Date.now },
  limits: AnswerLimits = DEFAULT_ANSWER_LIMITS,
): Map<string, RouteModel> {
  const context: FamilyContext = { access, clock, limits };
  // One factory per family and call: what a family shares between routes lives this long.
  const factories = new Map<string, (route: CatalogRoute) => ChatModel>();
  const routes = new Map<string, RouteModel>();
  for (const entry of models) {
    const family = familyOf(entry.provider.type);
    let create = factories.get(family.type);
    if (!create) {
      create = family.createModels(context);
      factories.set(family.type, create);
    }
    const capabilities = withOverrides(family.capabilities, entry.capabilities);
    // A model's own prefill setting wins; else the family may narrow its value per model id.
    const prefill =
      entry.capabilities?.prefill ?? (capabilities.prefill && (family.acceptsPrefill?.(entry.model) ?? true));
    routes.set(entry.key, {
      model: create(entry),
      timeouts: entry.timeouts,
      price: entry.price,
      capabilities: { ...capabilities, prefill },
      prefill,
      contextWindow: entry.contextWindow,
    });
  }
  return routes;
}
