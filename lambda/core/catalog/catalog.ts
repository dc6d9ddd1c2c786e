import type { BreakerPolicy } from '../breaker/breaker-policy.js';
import type { CapabilityOverrides } from '../capabilities/capability.js';
import { parseChain } from '../dsl/parse-chain.js';
import type { NameResolution, NameResolver, ParsedChain } from '../dsl/types.js';
import { chainUse } from '../embeddings/embedding-space.js';
import { ConfigError } from '../errors.js';
import { once } from '../lazy-schema.js';
import type { AttemptTimeouts, RoutePolicy } from '../router/route-types.js';
import { adHocId, unresolvedAllowListEntry } from './ad-hoc-chains.js';
import {
  type ModelConfig,
  type ProviderSettings,
  routerSchema,
  type SwitchyardConfig,
} from './config-schema.js';
import { deriveTimeouts } from './derive-timeouts.js';
import { DEFAULT_SUBSTITUTION_LIMITS } from './route-config-schema.js';

/**
 * Parsed chains the catalog remembers. Every request resolves its chain, and chains come from a
 * few pipelines plus whatever ad-hoc chains callers send, so a small bound keeps the hits and
 * stops a caller that sends a new chain each time from growing memory.
 */
export const PARSE_CACHE_SIZE = 256;

/**
 * The attempt settings of a config that sets no `router` field: the config schema's defaults
 * (built at the first call, not at import: it builds the router schema).
 */
export const defaultRoutePolicy: () => Readonly<RoutePolicy> = once(() =>
  Object.freeze({
    ...routerSchema.parse({}),
    ...DEFAULT_SUBSTITUTION_LIMITS,
  }),
);

/**
 * One way to call a model: a provider, the raw id there, a timeout and a price. Its `key` is the
 * breaker and trail key: the model key for the model's own provider (so a single-route model keeps
 * the key it always had), `<model>~<provider>` for each further route.
 */
export interface CatalogRoute {
  key: string;
  /** The catalog key of the model this route reaches. */
  modelKey: string;
  providerName: string;
  /** The provider's settings; its family (`type`) reads the rest of its fields. */
  provider: ProviderSettings;
  /** The provider's raw model id. */
  model: string;
  /** The route's time limits, derived from its `timeouts` and `timeoutMs` (docs/configuration.md#timeouts). */
  timeouts: AttemptTimeouts;
  price?: ModelConfig['price'];
  /** Largest `max_tokens` a request may ask of this model; undefined: `limits.maxOutputTokens`. */
  maxOutputTokens?: number | undefined;
  /** An embedding model's vector length (docs/concepts.md#embeddings); undefined for a chat model. */
  dimensions?: number | undefined;
  /** The model's `capabilities` overrides (docs/configuration.md#capabilities); undefined: none. */
  capabilities?: CapabilityOverrides | undefined;
  /** The model's context window in tokens (docs/configuration.md#context-windows); undefined: not declared. */
  contextWindow?: number | undefined;
}

/** One model of the catalog, with its provider's settings resolved: its first route. */
export interface CatalogModel extends CatalogRoute {
  aliases: string[];
  /** Every route of the model in the order they are tried, its own provider first. */
  routes: readonly CatalogRoute[];
}

/** Separates a model key from a further route's provider name in a route key (never in a chain name). */
export const ROUTE_SEPARATOR = '~';

/** Route and breaker settings of one pipeline, after overrides. */
export interface PipelinePolicy {
  route: RoutePolicy;
  breaker: BreakerPolicy;
}

/** The config, indexed: what chains are resolved against. */
export interface Catalog extends NameResolver {
  readonly config: SwitchyardConfig;
  readonly models: ReadonlyMap<string, CatalogModel>;
  /** Every route of every model, by route key (docs/concepts.md#routes-and-substitution). */
  readonly routes: ReadonlyMap<string, CatalogRoute>;
  /** Names of the configured pipelines. */
  readonly pipelines: readonly string[];
  hasPipeline(name: string): boolean;
  /**
   * Settings for a pipeline; an unknown name (an ad-hoc chain) gets the global defaults. Worked
   * out once at start-up and frozen: the same object is shared by every request.
   */
  policy(pipeline: string): PipelinePolicy;
  /**
   * Parses and resolves a chain against this catalog. Never throws. Results are remembered (the
   * last {@link PARSE_CACHE_SIZE} distinct chains) and frozen: treat them as read-only.
   */
  parse(chain: string): ParsedChain;
}

/**
 * Builds the catalog and checks that every configured pipeline's chain resolves to at least one
 * model (else `ConfigError` naming `pipelines.<name>.chain`).
 */
export function createCatalog(config: SwitchyardConfig): Catalog {
  const { models, resolve } = indexModels(config);
  const routes = new Map([...models.values()].flatMap((m) => m.routes.map((r) => [r.key, r] as const)));
  const { globalPolicy, policies } = pipelinePolicies(config);

  // Parsing is pure in (chain, catalog); results are frozen because every caller shares them.
  const parsed = new Map<string, ParsedChain>();
  const parse = (chain: string): ParsedChain => {
    const known = parsed.get(chain);
    if (known) return known;
    const result = deepFreeze(parseChain(chain, { resolve }));
    if (parsed.size >= PARSE_CACHE_SIZE) parsed.delete(parsed.keys().next().value as string);
    parsed.set(chain, result);
    return result;
  };

  const catalog: Catalog = {
    config,
    models,
    routes,
    pipelines: Object.keys(config.pipelines),
    hasPipeline: (name) => Object.hasOwn(config.pipelines, name),
    resolve,
    parse,
    policy: (pipeline) => policies.get(pipeline) ?? globalPolicy,
  };

  for (const [name, p] of Object.entries(config.pipelines)) {
    const parsed = catalog.parse(p.chain);
    if (parsed.tiers.length === 0) {
      const why = parsed.warnings.map((w) => w.message).join('; ') || 'it is empty';
      throw new ConfigError(`pipelines.${name}.chain`, `'${p.chain}' resolves to no model (${why})`);
    }
    const use = chainUse(parsed.tiers, (key) => models.get(key)?.dimensions);
    if (!use.ok) throw new ConfigError(`pipelines.${name}.chain`, `'${p.chain}' ${use.problem}`);
  }
  const unresolved = unresolvedAllowListEntry(config.admission, (chain) => adHocIdOf(catalog, chain));
  if (unresolved) throw new ConfigError(unresolved.field, unresolved.problem);
  return catalog;
}

/** The {@link adHocId} `chain` reads as in this catalog; undefined when it resolves to no model. */
export function adHocIdOf(catalog: Pick<Catalog, 'parse'>, chain: string): string | undefined {
  const { tiers } = catalog.parse(chain);
  return tiers.length > 0 ? adHocId(tiers) : undefined;
}

/** Every configured model by key, and how a name (key, alias, raw upstream id) resolves to one. */
function indexModels(config: SwitchyardConfig): {
  models: Map<string, CatalogModel>;
  resolve: (name: string) => NameResolution;
} {
  const models = new Map<string, CatalogModel>();
  const aliases = new Map<string, string>();
  const rawIds = new Map<string, string[]>();
  for (const [key, m] of Object.entries(config.models)) {
    const provider = config.providers[m.provider];
    if (!provider) throw new ConfigError(`models.${key}.provider`, `unknown provider '${m.provider}'`);
    const own: CatalogRoute = {
      key,
      modelKey: key,
      providerName: m.provider,
      provider,
      model: m.model,
      timeouts: deriveTimeouts(`models.${key}`, m),
      price: m.price,
      maxOutputTokens: m.maxOutputTokens,
      dimensions: m.dimensions,
      capabilities: m.capabilities,
      contextWindow: m.contextWindow,
    };
    models.set(key, { ...own, aliases: m.aliases, routes: [own, ...furtherRoutes(config, key, own)] });
    for (const alias of m.aliases) aliases.set(alias, key);
    rawIds.set(m.model, [...(rawIds.get(m.model) ?? []), key]);
  }

  const resolve = (name: string): NameResolution => {
    if (models.has(name)) return { kind: 'model', key: name };
    const aliased = aliases.get(name);
    if (aliased !== undefined) return { kind: 'model', key: aliased };
    const candidates = rawIds.get(name) ?? [];
    if (candidates.length === 1 && candidates[0] !== undefined) return { kind: 'model', key: candidates[0] };
    if (candidates.length > 1) return { kind: 'ambiguous', candidates };
    return { kind: 'unknown' };
  };
  return { models, resolve };
}

/**
 * A model's routes after its own provider, each unset field taken from the model. A provider
 * that is unknown or already a route of the model is a `ConfigError` naming the route.
 */
function furtherRoutes(config: SwitchyardConfig, key: string, own: CatalogRoute): CatalogRoute[] {
  const seen = new Set([own.providerName]);
  return (config.models[key]?.routes ?? []).map((r, index) => {
    const field = `models.${key}.routes[${index}].provider`;
    const provider = config.providers[r.provider];
    if (!provider) throw new ConfigError(field, `unknown provider '${r.provider}'`);
    if (seen.has(r.provider))
      throw new ConfigError(field, `'${r.provider}' is already a route of this model`);
    seen.add(r.provider);
    return {
      ...own,
      key: `${key}${ROUTE_SEPARATOR}${r.provider}`,
      providerName: r.provider,
      provider,
      model: r.model ?? own.model,
      timeouts: deriveTimeouts(`models.${key}.routes[${index}]`, r, own.timeouts),
      price: r.price ?? own.price,
    };
  });
}

/** The global policy and each pipeline's, worked out once: the config never changes after start-up. */
function pipelinePolicies(config: SwitchyardConfig): {
  globalPolicy: PipelinePolicy;
  policies: Map<string, PipelinePolicy>;
} {
  const globalBreaker: BreakerPolicy = { ...config.breaker };
  const globalRoute: RoutePolicy = { ...config.router, ...DEFAULT_SUBSTITUTION_LIMITS };
  const globalPolicy: PipelinePolicy = deepFreeze({ route: globalRoute, breaker: globalBreaker });
  const policies = new Map<string, PipelinePolicy>();
  for (const [name, p] of Object.entries(config.pipelines)) {
    policies.set(
      name,
      deepFreeze({
        route: {
          ...globalRoute,
          ...stripUndefined({
            maxAttempts: p.maxAttempts,
            deadlineMs: p.deadlineMs,
            fallbackOnContextLength: p.fallbackOnContextLength,
            retry: p.retry,
            selection: p.selection,
          }),
          substitution: p.substitution,
          maxTier: p.maxTier,
          afterOutput: p.streaming.afterOutput,
        },
        breaker: { ...globalBreaker, ...stripUndefined(p.breaker ?? {}) },
      }),
    );
  }
  return { globalPolicy, policies };
}

/** Freezes a plain value and everything it holds (arrays and objects), in place. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
