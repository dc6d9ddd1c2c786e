/**
 * The contract of a provider family (in the spirit of the Vercel AI SDK's provider packages): it
 * owns its config schema, its capabilities and its adapter, and `registry.ts` lists the families.
 * Adding a family is one folder with one of these records, plus one line in the registry.
 */
import type * as z from 'zod';
import type { Capabilities } from '../core/capabilities/capability.js';
import type { CatalogRoute } from '../core/catalog/catalog.js';
import type { ProviderSettings } from '../core/catalog/config-schema.js';
import type { ChatModel } from '../core/chat/chat-model.js';
import type { FailureSignals } from '../core/failures/failure-signals.js';
import type { Clock } from '../core/time.js';
import type { BedrockCredentials } from './bedrock/bedrock-chat-model.js';
import type { AnswerLimits } from './shared/answer-limits.js';

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
  /**
   * The setting a caller may be told to set for this provider (a local environment variable's
   * name), or undefined. Absent (the AWS deployment): callers learn the provider only, the
   * parameter names stay with the operators.
   */
  callerHint?(providerName: string): string | undefined;
  /** Bedrock credentials; default: the AWS SDK's own provider chain. */
  bedrockCredentials?: BedrockCredentials | undefined;
}

/** What every model of one process shares: key access, the clock, the read bounds. */
export interface FamilyContext {
  access: ProviderAccess;
  clock: Clock;
  /** What each attempt may read (the config's `limits`). */
  limits: AnswerLimits;
}

/** A catalog route whose provider settings are of this family's config type. */
export interface FamilyRoute<C extends ProviderSettings> extends Omit<CatalogRoute, 'provider'> {
  provider: C;
}

/** One provider family: the config `type` it answers to and everything that type means. */
export interface ProviderFamily<C extends ProviderSettings> {
  /** The provider config's `type`, e.g. `bedrock`. */
  readonly type: C['type'];
  /** The schema of its provider entries (a strict object whose `type` is this literal). */
  readonly schema: z.ZodType<C, unknown>;
  /** True when its calls carry a key from `apiKeyEnv` / `apiKeySecret` (checked by deploy, doctor, keys). */
  readonly keyed: boolean;
  /** True when its models may declare `dimensions`: it has an embeddings API. */
  readonly embeddings: boolean;
  /**
   * What its routes can carry (docs/concepts.md#capabilities); a model's `capabilities` in the
   * config override single values. The router skips a route that lacks what a request needs.
   */
  readonly capabilities: Capabilities;
  /**
   * Narrows `capabilities.prefill` per raw model id, for a family whose models differ (Bedrock:
   * Claude only). Absent: every model of the family has the family's value. A model's own
   * `capabilities.prefill` in the config wins over both.
   */
  acceptsPrefill?(model: string): boolean;
  /**
   * Its `gen_ai.provider.name` when the OpenTelemetry GenAI conventions give the family a
   * well-known one (e.g. `aws.bedrock`). Default: the configured provider name.
   */
  readonly traceName?: string;
  /** Its rows of the failure matrix (exception names, error codes, sentences), with the generic ones. */
  readonly signals: FailureSignals;
  /**
   * Called once per process (per `createRouteModels`): returns the factory of this family's
   * models, which may share state between the routes of one provider (e.g. access tokens).
   */
  createModels(context: FamilyContext): (route: FamilyRoute<C>) => ChatModel;
}
