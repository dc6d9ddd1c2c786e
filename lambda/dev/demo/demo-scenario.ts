/**
 * The story `switchyard demo` tells (docs/design.md#scenarios, seed 000): a quiet baseline, a 30× demo-day spike,
 * a return to normal, then a cron burst where many pipelines wake in the same second. Every
 * number lives here, so the live view, the summary and the report describe the same run.
 */
import { type BreakerPolicy, DEFAULT_BREAKER_POLICY } from '../../core/breaker/breaker-policy.js';
import { DEFAULT_PROBE_SCHEDULE } from '../../core/breaker/probe-schedule.js';
import type { ProviderSpec } from './provider-spec.js';

/** One stretch of the story with a steady arrival rate on the main pipeline. */
export interface DemoPhase {
  /** Short name for tables: `baseline`, `spike`, `recovery`, `cron`. */
  name: string;
  /** What the phase shows, for the live view and the report. */
  label: string;
  /** Start, ms after the run started. */
  startMs: number;
  /** End (exclusive), ms after the run started. */
  endMs: number;
  /** Requests per second on the main pipeline during the phase. */
  ratePerSecond: number;
}

/** Many pipelines waking together, each firing a small batch at the same instant. */
export interface CronBurst {
  /** Pipelines that wake (each keeps its own breakers). */
  pipelines: string[];
  /** Requests each pipeline sends when it wakes. */
  requestsEach: number;
  /** When the first pipeline wakes, ms after the run started. */
  atMs: number;
  /** Wake times are spread uniformly over this many ms ("the same second"). */
  spreadMs: number;
}

/**
 * One simulated upstream of the demo: an OpenAI-compatible endpoint serving one model. Its quota
 * minute is {@link DemoScenario.minuteMs} long.
 */
export interface DemoProviderSpec extends ProviderSpec {
  /** Provider name in the demo config, e.g. `openai-sim`. */
  provider: string;
  /** Raw model id the upstream sees. */
  rawModel: string;
  /** 1-based tier of the model in every demo chain. */
  tier: number;
  /** US$ per million input / output tokens, so the ledger carries a cost. */
  price: { inputPerMTok: number; outputPerMTok: number };
}

/** Everything that defines one demo run. */
export interface DemoScenario {
  /** Length of the load in seconds (draining in-flight requests comes on top). */
  seconds: number;
  /**
   * Real ms that stand for one minute of provider quota. The demo runs provider time 150× fast
   * (400 ms per quota minute), so a per-minute quota refills several times per second.
   */
  minuteMs: number;
  /** The pipeline the demo-day users hit. */
  mainPipeline: string;
  /** The chain every demo pipeline runs on: two official endpoints, then the aggregator. */
  chain: string;
  phases: DemoPhase[];
  cron: CronBurst;
  providers: DemoProviderSpec[];
  /**
   * Breaker policy for every pipeline: the defaults, with times scaled down to fit the run, and
   * recovery `ramp` (docs/concepts.md#breaker-recovery) so the official tier returns gradually.
   */
  breaker: BreakerPolicy;
  /** Upstream attempts per request. */
  maxAttempts: number;
  /** Time budget of one request in ms. */
  deadlineMs: number;
  /** Upper bound of one attempt in ms. */
  attemptTimeoutMs: number;
  /** Seed of the demo's own randomness (latencies, wake times), so runs are comparable. */
  seed: number;
  /**
   * True (the default): the gateway is told each simulated provider's quota
   * (docs/concepts.md#declared-quotas) and skips a spent route before the provider has to say
   * 429; false (`--no-declared-quotas`): it learns the quotas from 429s only.
   */
  declaredQuotas: boolean;
}

/** Default length of `switchyard demo`, in seconds. */
export const DEFAULT_DEMO_SECONDS = 60;

/** Pipelines of the cron burst, each with its own breakers (docs/design.md#scenarios: "dozens"). */
const CRON_PIPELINES = 24;

/** Requests per second on the main pipeline when nothing special happens. */
const BASELINE_RATE = 4;

/**
 * The default story, stretched or squeezed to `seconds` (60 by default; a test runs ~6). Rates
 * and quotas stay the same whatever the length, so a short run still overflows the official
 * tier; phase boundaries and breaker times scale with the length.
 */
export function createDemoScenario(seconds = DEFAULT_DEMO_SECONDS, seed = 7): DemoScenario {
  const f = seconds / DEFAULT_DEMO_SECONDS;
  const at = (s: number) => Math.round(s * 1000 * f);
  const minuteMs = 400;
  // 15 quota minutes at demo speed, like the default 15-minute window and open time.
  const breakerMs = Math.max(300, Math.round(15 * minuteMs * f));
  return {
    seconds,
    minuteMs,
    mainPipeline: 'generate',
    chain: '(gpt-mini|gemini-flash),llama-or',
    phases: [
      {
        name: 'baseline',
        label: 'quiet traffic; the official tier serves',
        startMs: 0,
        endMs: at(10),
        ratePerSecond: BASELINE_RATE,
      },
      {
        name: 'spike',
        label: 'demo day: traffic jumps 30x in a second',
        startMs: at(10),
        endMs: at(28),
        ratePerSecond: BASELINE_RATE * 30,
      },
      {
        name: 'recovery',
        label: 'back to normal; gemini-flash has a short outage',
        startMs: at(28),
        endMs: at(44),
        ratePerSecond: BASELINE_RATE,
      },
      {
        name: 'cron',
        label: `${CRON_PIPELINES} cron pipelines wake in the same second`,
        startMs: at(44),
        endMs: at(60),
        ratePerSecond: BASELINE_RATE,
      },
    ],
    cron: {
      pipelines: Array.from({ length: CRON_PIPELINES }, (_, i) => `cron-${String(i + 1).padStart(2, '0')}`),
      requestsEach: 6,
      atMs: at(45),
      spreadMs: Math.max(100, at(1)),
    },
    providers: [
      {
        provider: 'openai-sim',
        modelKey: 'gpt-mini',
        rawModel: 'gpt-4o-mini',
        tier: 1,
        quotaPerMinute: 12,
        latency: { medianMs: 220, sigma: 0.35, maxMs: 2_000 },
        price: { inputPerMTok: 0.15, outputPerMTok: 0.6 },
      },
      {
        provider: 'google-sim',
        modelKey: 'gemini-flash',
        rawModel: 'gemini-2.0-flash',
        tier: 1,
        quotaPerMinute: 10,
        latency: { medianMs: 260, sigma: 0.4, maxMs: 2_000 },
        outage: { startMs: at(36), endMs: at(40), status: 503 },
        price: { inputPerMTok: 0.1, outputPerMTok: 0.4 },
      },
      {
        provider: 'openrouter-sim',
        modelKey: 'llama-or',
        rawModel: 'meta-llama/llama-3.3-70b-instruct',
        tier: 2,
        // The aggregator is the elastic pool: big enough to carry the whole spike alone, with room
        // for the bunching a busy machine adds.
        quotaPerMinute: 250,
        latency: { medianMs: 450, sigma: 0.55, maxMs: 3_000 },
        price: { inputPerMTok: 0.13, outputPerMTok: 0.4 },
      },
    ],
    breaker: {
      ...DEFAULT_BREAKER_POLICY,
      windowMs: breakerMs,
      minSamples: 5,
      failureRate: 0.3,
      consecutive429: 2,
      openMs: breakerMs,
      // The seed's 30 s probe slots and 1-minute ramp steps, on the same scale as the 15 minutes.
      recovery: 'ramp',
      probeIntervalMs: Math.max(100, Math.round(breakerMs / 30)),
      // The default probe schedule (5 s, 15 s, 60 s steps over 15 minutes) on the same scale.
      probeSchedule: DEFAULT_PROBE_SCHEDULE.map((step) => ({
        untilMs: Math.max(50, Math.round((step.untilMs * breakerMs) / 900_000)),
        everyMs: Math.max(20, Math.round((step.everyMs * breakerMs) / 900_000)),
      })),
      probeLeaseMs: Math.max(100, Math.round(breakerMs / 30)),
      rampStepMs: Math.max(100, Math.round(breakerMs / 15)),
    },
    maxAttempts: 3,
    // Generous for answers of at most 3 s: on a starved machine an expired timer runs before the
    // answer that already arrived, and a tight timeout would turn that stall into failures.
    deadlineMs: 20_000,
    attemptTimeoutMs: 10_000,
    seed,
    declaredQuotas: true,
  };
}

/** Index of the phase running at `tMs` (the last phase past the end). */
export function phaseIndexAt(scenario: DemoScenario, tMs: number): number {
  const index = scenario.phases.findIndex((p) => tMs >= p.startMs && tMs < p.endMs);
  return index === -1 ? scenario.phases.length - 1 : index;
}

/** The phase running at `tMs` (the last phase past the end). */
export function phaseAt(scenario: DemoScenario, tMs: number): DemoPhase {
  // Every scenario has at least one phase; createDemoScenario builds four.
  return scenario.phases[phaseIndexAt(scenario, tMs)] as DemoPhase;
}

/** Requests per second one provider accepts at demo speed. */
export function quotaPerSecond(scenario: DemoScenario, provider: DemoProviderSpec): number {
  return (provider.quotaPerMinute * 1000) / scenario.minuteMs;
}

/** Tier of a model key in the demo chain; `undefined` for a key the chain does not name. */
export function tierOf(scenario: DemoScenario, modelKey: string | undefined): number | undefined {
  return scenario.providers.find((p) => p.modelKey === modelKey)?.tier;
}

/** Every pipeline of the run: the main one first, then the cron pipelines. */
export function demoPipelines(scenario: DemoScenario): string[] {
  return [scenario.mainPipeline, ...scenario.cron.pipelines];
}
