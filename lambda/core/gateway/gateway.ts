import type { BreakerPolicy } from '../breaker/breaker-policy.js';
import { type BreakerSnapshot, isCooling, windowCounts } from '../breaker/breaker-state.js';
import type { Breakers } from '../breaker/breakers.js';
import { type BreakerPhase, breakerPhase, rampEnd, rampShare } from '../breaker/recovery.js';
import { isRouteCooling } from '../breaker/route-cooling.js';
import type { RouteCapacity } from '../capacity/route-capacity.js';
import { AD_HOC_PIPELINE, isAdHoc, stateScope, stateScopeIn } from '../catalog/ad-hoc-chains.js';
import type { Catalog } from '../catalog/catalog.js';
import { type ChainSource, envVarName, resolveEffectiveChain } from '../catalog/chain-sources.js';
import type { ChatRequest, ChatResult } from '../chat/chat-model.js';
import { echoable } from '../chat/request-bounds.js';
import { estimatePromptTokens } from '../chat/token-estimate.js';
import type { EmbeddingRequest, EmbeddingResult } from '../embeddings/embedding-model.js';
import type { LedgerSink } from '../ledger/ledger-entry.js';
import type { Logger } from '../logger.js';
import { outputPolicy } from '../output/output-policy.js';
import type { CommittedStream } from '../router/route-chat.js';
import { routeEmbed } from '../router/route-embed.js';
import { createRouteSignals, type RouteSignals } from '../router/route-signals.js';
import type { RouteModel, RouteResult, RouterDeps } from '../router/route-types.js';
import type { Clock, Random, SetTimer, Sleep } from '../time.js';
import { type AnswerContext, generateAnswer, type OutputDeps, streamAnswer } from './answer-flow.js';
import { createCanaryGuard, watchCanary } from './canary-guard.js';
import { type CountInput, countTokens, type TokenCount } from './count-tokens.js';
import { onceLogger } from './once-logger.js';
import { routerFor, splitCanary } from './override-routing.js';
import { resolveTarget, type TargetLookup } from './resolve-target.js';
import type { Target, UnknownTarget } from './target.js';

export interface GatewayDeps {
  catalog: Catalog;
  /** Chain sources in precedence order: env, SSM, config (docs/design.md#chain-sources). */
  sources: readonly ChainSource[];
  /** Every callable route by route key (a single-route model's route key is its model key). */
  models: ReadonlyMap<string, RouteModel>;
  breakers: Breakers;
  clock: Clock;
  random: Random;
  sleep: Sleep;
  /** Timers of attempts (`setTimeout`'s in production). Default: made of `sleep`. */
  timer?: SetTimer | undefined;
  ledger: LedgerSink;
  log: Logger;
  /** Bulkheads and declared quotas of the routes (docs/concepts.md#bulkheads). Absent: none. */
  capacity?: RouteCapacity | undefined;
  /** Names of the environment variables that are set, to notice pipelines only an override names. */
  envOverrides?: (name: string) => boolean;
  /** Structured-output validator, last-resort cache and the digest of its keys. */
  output: OutputDeps;
  /** This container's route signals (docs/concepts.md#selection-strategies). Default: a fresh set on `clock`. */
  signals?: RouteSignals | undefined;
}

/** Per-request context. */
export interface CallContext {
  /** The gateway's own request id: the ledger's `requestId`, the one key lines are joined on. */
  requestId: string;
  /** The caller's `x-request-id`, when it sent one: kept on the request line, never a key. */
  clientRequestId?: string | undefined;
  /** Aborts when the caller goes away. */
  signal?: AbortSignal | undefined;
}

/** The state of one breaker, as `GET /v1/breakers` and `switchyard breakers` show it. */
export interface BreakerView {
  pipeline: string;
  /** The model key. */
  model: string;
  /** The route's provider when the model has several routes (docs/concepts.md#routes-and-substitution); null for a model's only route. */
  route: string | null;
  state: 'open' | 'closed';
  openUntil: string | null;
  openReason: string | null;
  windowAttempts: number;
  windowFailures: number;
  consecutive429: number;
  coolingUntil: string | null;
  /** While the account route (provider, upstream model id) cools after a 429 of any pipeline: its end (docs/concepts.md#account-route-cooling). */
  routeCoolingUntil: string | null;
  /** The pipeline whose 429 set that cooling. */
  routeCooledBy: string | null;
  /** How the pipeline's breakers return (docs/concepts.md#breaker-recovery): `window` or `ramp`. */
  recovery: 'window' | 'ramp';
  /** `open` and `probing` show as state `open`, `ramp` and `closed` as `closed`. */
  phase: BreakerPhase;
  /** Probe successes in a row since the opening (recovery `ramp`). */
  probeStreak: number;
  /** While open on recovery `ramp`: when the next probe slot starts; null when it is free now. */
  nextProbeAt: string | null;
  /** During the ramp: the share of traffic (percent) the route may take now. */
  rampShare: number | null;
  /** During the ramp: when it ends and the breaker is closed. */
  rampUntil: string | null;
}

/** The routing service behind the HTTP app: which chain a request runs on, and running it. */
export interface Gateway {
  resolveTarget(
    model: string | undefined,
    headerPipeline: string | undefined,
  ): Promise<Target | UnknownTarget>;
  generate(target: Target, chat: ChatRequest, context: CallContext): Promise<RouteResult<ChatResult>>;
  stream(target: Target, chat: ChatRequest, context: CallContext): Promise<RouteResult<CommittedStream>>;
  /** Embeddings over the target's chain, whose models share one space (docs/concepts.md#embeddings). */
  embed(
    target: Target,
    embedding: EmbeddingRequest,
    context: CallContext,
  ): Promise<RouteResult<EmbeddingResult>>;
  /** The input tokens of `chat` on the target's first route, counted upstream where it can be, else estimated. */
  countTokens(target: Target, chat: ChatRequest, input: CountInput): Promise<TokenCount>;
  /** Every configured pipeline with its effective chain. */
  pipelines(): Promise<Target[]>;
  /**
   * Breakers of every configured pipeline and of the shared ad-hoc pipeline `adhoc`, or of one
   * (an ad-hoc chain's id names `adhoc`); undefined for a name that is not routable.
   */
  breakers(pipeline?: string): Promise<BreakerView[] | undefined>;
}

export { AD_HOC_PREFIX } from './resolve-target.js';

/** A chat request's size for context-window fit: its prompt's estimate (a floor) plus the output it asks for. */
const contextDemand = (chat: ChatRequest, charsPerToken: number) =>
  estimatePromptTokens(chat, charsPerToken) + (chat.maxTokens ?? 0);

const iso = (ms: number | undefined, now: number) =>
  ms !== undefined && ms > now ? new Date(ms).toISOString() : null;

export function createGateway(deps: GatewayDeps): Gateway {
  const { catalog, clock } = deps;
  // A bad override is logged once per distinct value, not on every request that skips it.
  const log = onceLogger(deps.log);
  const echo = (name: string) => echoable(name, catalog.config.limits.maxEchoChars);
  const routeKeysOf = (model: string) => catalog.models.get(model)?.routes.map((r) => r.key) ?? [model];
  const routerDeps: RouterDeps = {
    clock,
    random: deps.random,
    sleep: deps.sleep,
    timer: deps.timer,
    breakers: deps.breakers,
    models: (key) => deps.models.get(key),
    routesOf: routeKeysOf,
    ledger: deps.ledger,
    signals: deps.signals ?? createRouteSignals(() => clock.now()),
    capacity: deps.capacity,
  };

  // An override names a pipeline the config lacks only in a name no configured pipeline shares
  // (`P` is not a second `p` beside it, with no limits and breakers of its own); `adhoc` is
  // reserved for ad-hoc chains, so not even `MODEL_ADHOC` makes it a pipeline.
  const configuredVars = new Set(catalog.pipelines.map(envVarName));
  const isPipeline = (name: string) => {
    if (catalog.hasPipeline(name)) return true;
    const variable = envVarName(name);
    if (name === AD_HOC_PIPELINE || configuredVars.has(variable)) return false;
    return deps.envOverrides?.(variable) ?? false;
  };

  const pipelineTarget = async (pipeline: string): Promise<Target | undefined> => {
    const effective = await resolveEffectiveChain(pipeline, deps.sources, catalog, log, clock.now());
    if (!effective) return undefined;
    return { kind: 'pipeline', ...effective, policy: catalog.policy(pipeline) };
  };
  const lookup: TargetLookup = { catalog, isPipeline, pipelineTarget, echo };

  const guard = createCanaryGuard(stateScopeIn((name) => catalog.hasPipeline(name)));
  const watching = { guard, clock, log: deps.log, policy: (p: string) => catalog.policy(p).breaker };

  const answering = (
    target: Target,
    context: CallContext,
    stream: boolean,
    chat?: ChatRequest,
  ): AnswerContext => ({
    request: {
      requestId: context.requestId,
      clientRequestId: context.clientRequestId,
      pipeline: target.pipeline,
      tiers: target.tiers,
      policy: target.policy.route,
      signal: context.signal,
      stream,
      // The admission's estimate of the prompt, plus the output asked for: models whose context
      // window is smaller are passed over (docs/concepts.md#context-windows).
      ...(chat ? { contextTokens: contextDemand(chat, catalog.config.admission.charsPerToken) } : {}),
    },
    router: routerFor(routerDeps, target, watchCanary(target, watching)),
    policy: outputPolicy(catalog.config, target.pipeline),
    output: deps.output,
  });

  return {
    // A canary is drawn once per request, here, so the header, the ledger and the chain agree.
    resolveTarget: async (model, headerPipeline) => {
      const target = await resolveTarget(lookup, model, headerPipeline);
      if (target.kind === 'unknown' || !target.canary) return target;
      // A canary this container aborted draws 1, which no share reaches: the stable chain.
      return splitCanary(target, guard.aborted(target.pipeline, target.canary.since) ? 1 : deps.random());
    },
    generate: (target, chat, context) => generateAnswer(answering(target, context, false, chat), chat),
    stream: (target, chat, context) => streamAnswer(answering(target, context, true, chat), chat),
    countTokens: (target, chat, input) => {
      const routesOf = (key: string) => routeKeysOf(key).flatMap((r) => deps.models.get(r) ?? []);
      return countTokens({ routesOf, clock, sleep: deps.sleep, timer: deps.timer }, target, chat, input);
    },
    embed: (target, embedding, context) => {
      const { request, router } = answering(target, context, false);
      return routeEmbed(request, router, embedding);
    },

    async pipelines() {
      const targets = await Promise.all(catalog.pipelines.map(pipelineTarget));
      return targets.filter((t): t is Target => t !== undefined);
    },

    async breakers(pipeline) {
      // Only names that route: an arbitrary name must not create state (or a store read) of its own.
      if (pipeline !== undefined && !isPipeline(pipeline) && !isAdHoc(pipeline)) return undefined;
      const now = clock.now();
      const views: BreakerView[] = [];
      if (pipeline !== undefined) return pipelineBreakers(stateScope(pipeline), deps, lookup, now);
      for (const name of catalog.pipelines) views.push(...(await pipelineBreakers(name, deps, lookup, now)));
      // The shared ad-hoc pipeline is listed once it holds state; it has no chain of its own.
      const adHoc = await pipelineBreakers(AD_HOC_PIPELINE, deps, lookup, now);
      return [...views, ...adHoc];
    },
  };
}

/** The breakers of one pipeline: every route of every model of its chain, and any other the store still holds. */
async function pipelineBreakers(
  name: string,
  deps: GatewayDeps,
  lookup: TargetLookup,
  now: number,
): Promise<BreakerView[]> {
  const target = lookup.isPipeline(name) ? await lookup.pipelineTarget(name) : undefined;
  const snapshots = await deps.breakers.read(name);
  const { catalog } = deps;
  const routeKeys = (model: string) => catalog.models.get(model)?.routes.map((r) => r.key) ?? [model];
  const keys = new Set([
    ...(target?.tiers.flatMap((t) => t.members.flatMap((m) => routeKeys(m.key))) ?? []),
    ...snapshots.keys(),
  ]);
  const policy = catalog.policy(name).breaker;
  const cooling = await deps.breakers.routeCooling([...keys]);
  return [...keys].map((key) => {
    const route = catalog.routes.get(key);
    const several = route !== undefined && (catalog.models.get(route.modelKey)?.routes.length ?? 0) > 1;
    const named = { model: route?.modelKey ?? key, route: several ? (route?.providerName ?? null) : null };
    const account = cooling.get(key);
    const cools = isRouteCooling(account, now);
    return {
      ...breakerView(name, named, snapshots.get(key), now, policy),
      routeCoolingUntil: cools ? iso(account?.coolUntil, now) : null,
      routeCooledBy: cools ? (account?.cooledBy ?? null) : null,
    };
  });
}

function breakerView(
  pipeline: string,
  { model, route }: { model: string; route: string | null },
  s: BreakerSnapshot | undefined,
  now: number,
  policy: BreakerPolicy,
): Omit<BreakerView, 'routeCoolingUntil' | 'routeCooledBy'> {
  const counts = s ? windowCounts(s, now, policy) : { attempts: 0, failures: 0 };
  const phase = breakerPhase(s, now);
  const open = phase === 'open' || phase === 'probing';
  const probing = s?.probing === true;
  return {
    pipeline,
    model,
    route,
    state: open ? 'open' : 'closed',
    openUntil: iso(s?.openUntil, now),
    openReason: open ? (s?.openReason ?? null) : null,
    windowAttempts: counts.attempts,
    windowFailures: counts.failures,
    consecutive429: s?.consecutive429 ?? 0,
    coolingUntil: s && isCooling(s, now) ? iso(s.coolUntil, now) : null,
    recovery: policy.recovery,
    phase,
    probeStreak: probing ? (s?.probeStreak ?? 0) : 0,
    nextProbeAt: probing ? iso(s?.openUntil, now) : null,
    rampShare: (phase === 'ramp' && s && rampShare(s, now)) || null,
    rampUntil: phase === 'ramp' && s ? iso(rampEnd(s), now) : null,
  };
}
