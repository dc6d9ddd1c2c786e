/**
 * The seed-000 scenario: two official endpoints load-balanced in front of an aggregator,
 * `(officialA|officialB),aggregator`, through one hour of demo-day traffic. The numbers are
 * chosen so that together the providers can always serve the trace (the simulator checks it and
 * says so), while each official endpoint alone runs out of quota at every spike.
 */
import { latencyFromP95 } from '../../lambda/dev/demo/provider-spec.js';
import type { SimProviderSpec } from './sim-provider.js';
import type { TraceSpec } from './trace.js';

/** The chain every strategy with fallback runs on. */
export const CHAIN = '(officialA|officialB),aggregator';

/** Virtual start of the trace: 09:59:30 UTC, so that the 10:00 cron burst comes 30 s in. */
export const START = Date.UTC(2025, 2, 14, 9, 59, 30);

const minutes = (m: number) => m * 60_000;
/** Latency samples are capped here, so one extreme draw cannot stall a simulation. */
const MAX_LATENCY_MS = 60_000;

/**
 * Official endpoints: cheaper and faster, with modest quotas. The aggregator: slower, with a
 * large quota. officialB is down (503) from 10:40 to 10:45, during the third spike.
 */
export const PROVIDERS: readonly SimProviderSpec[] = [
  {
    modelKey: 'officialA',
    quotaPerMinute: 1_200,
    burstSeconds: 15,
    latency: latencyFromP95(700, 2_000, MAX_LATENCY_MS),
    errorLatencyMs: 40,
  },
  {
    modelKey: 'officialB',
    quotaPerMinute: 900,
    burstSeconds: 15,
    latency: latencyFromP95(900, 2_500, MAX_LATENCY_MS),
    errorLatencyMs: 40,
    outage: { startMs: minutes(40.5), endMs: minutes(45.5), status: 503 },
  },
  {
    modelKey: 'aggregator',
    quotaPerMinute: 6_000,
    burstSeconds: 15,
    latency: latencyFromP95(1_200, 3_000, MAX_LATENCY_MS),
    errorLatencyMs: 60,
  },
];

/**
 * One hour: 3 requests/s on four everyday pipelines; three demo spikes to 30× (about 90
 * requests/s) of three to five minutes on the demo pipeline, the third during officialB's
 * outage; at 10:00 fifty hourly pipelines fire in the same second, at 10:30 the twenty-five
 * that run every half hour.
 */
export const TRACE: TraceSpec = {
  durationS: 3_600,
  baselinePerSecond: 3,
  baselinePipelines: ['comment-filter', 'reply-writer', 'summarise', 'demo-chat'],
  demoPipeline: 'demo-chat',
  spikeFactor: 30,
  rampUpS: 10,
  rampDownS: 30,
  spikes: [
    { startS: 12 * 60 + 30, holdS: 180 },
    { startS: 25 * 60 + 30, holdS: 240 },
    { startS: 41 * 60 + 30, holdS: 180 },
  ],
  cron: [
    { atS: 30, pipelines: 50, jobs: [4, 24], prefix: 'cron' },
    { atS: 30 * 60 + 30, pipelines: 25, jobs: [4, 24], prefix: 'cron' },
  ],
};

/** Upper bound of one attempt, in ms (the catalog's default). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
