import type { PipelinePolicy } from '../catalog/catalog.js';
import type { CanaryChain, ChainSourceName } from '../catalog/chain-sources.js';
import type { DslWarning, Tier } from '../dsl/types.js';
import type { ChainVariant } from '../ledger/ledger-entry.js';

/** What a request routes over: a pipeline's effective chain, or an ad-hoc chain named in `model`. */
export interface Target {
  kind: 'pipeline' | 'chain';
  /**
   * Pipeline name; for an ad-hoc chain `chain:` and its canonical text (ledger, jobs, traces),
   * while its breakers and limits are the reserved pipeline `adhoc`'s (`stateScope`).
   */
  pipeline: string;
  /** Where the chain came from; `request` for an ad-hoc chain. */
  source: ChainSourceName | 'request';
  chain: string;
  tiers: Tier[];
  warnings: DslWarning[];
  policy: PipelinePolicy;
  /** Ms since epoch when a timed override's chain stops applying (docs/design.md#timed-overrides-and-canaries). */
  until?: number | undefined;
  /** Breaker openings of this chain's routes are ignored (a pin). */
  pinned?: boolean | undefined;
  /** The canary running over this (stable) chain, as `GET /v1/pipelines` shows it. */
  canary?: CanaryChain | undefined;
  /** Which chain of a canary this request drew; set only while a canary runs. */
  variant?: ChainVariant | undefined;
}

/** Why a request names nothing routable: each door answers it with a 404 in its own envelope. */
export interface UnknownTarget {
  kind: 'unknown';
  message: string;
  /** The request field that named it: `model`, or the `x-switchyard-pipeline` header. */
  param: 'model' | 'x-switchyard-pipeline';
}
