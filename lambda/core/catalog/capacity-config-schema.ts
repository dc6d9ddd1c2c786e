/**
 * Bulkheads and declared quotas (docs/concepts.md#bulkheads, docs/concepts.md#declared-quotas;
 * fields: docs/configuration.md#capacity-bulkheads-and-declared-quotas): how many attempts may be in flight per provider and per
 * route, and what an account route (provider + upstream model) may spend per minute.
 */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { name, positiveInt } from './config-fields.js';

const bulkhead = lazySchema(() =>
  z.strictObject({
    /** Most attempts in flight at once. */
    maxInFlight: positiveInt.max(1_000_000),
  }),
);

/** A quota the account has with the provider, per sliding minute; at least one field. */
const quota = lazySchema(() =>
  z
    .strictObject({
      /** Requests (attempts) per sliding minute. */
      requestsPerMinute: positiveInt.max(1_000_000).optional(),
      /** Tokens (input estimate + output allowance) per sliding minute. */
      tokensPerMinute: positiveInt.max(1_000_000_000).optional(),
    })
    .refine((q) => q.requestsPerMinute !== undefined || q.tokensPerMinute !== undefined, {
      error: 'declare requestsPerMinute, tokensPerMinute or both',
    }),
);

/** The `capacity` block. Default: no bulkhead, no quota. */
export const capacitySchema = lazySchema(() =>
  z.strictObject({
    /**
     * Count in-flight attempts and quota use in the breaker table, shared by every container and
     * gateway on it (one conditional write to take, one to give back, a read per window slice).
     * Default false: each process counts for itself (in memory). Only with a DynamoDB breaker store.
     */
    shared: z.boolean().default(false),
    /**
     * How long a shared in-flight lease counts at most, in ms, so that a container that died with
     * attempts in flight frees its leases: longer than any attempt. Default 120000 (2 min).
     */
    leaseMs: positiveInt.min(1_000).max(3_600_000).default(120_000),
    /**
     * Length of a quota minute, in ms: 60000, but for a clock that runs faster than the wall clock
     * (the demo runs at 150×: 400). The minute is counted in thirty slices. Default 60000.
     */
    quotaMinuteMs: positiveInt.min(60).max(60_000).default(60_000),
    /** Provider name → its bulkhead: every route on that provider counts. */
    providers: z.record(name, bulkhead).default({}),
    /** Route key (a model key, or `<model>~<provider>` for a further route) → its bulkhead. */
    routes: z.record(z.string().min(1).max(401), bulkhead).default({}),
    /** Provider name → upstream model id → the account route's declared quota. */
    quotas: z.record(name, z.record(z.string().min(1).max(200), quota)).default({}),
  }),
);

export type CapacitySettings = z.infer<typeof capacitySchema>;

/** The parts of a config the capacity block names. */
interface Referenced {
  providers: Record<string, unknown>;
  models: Record<
    string,
    { provider: string; model: string; routes?: { provider: string; model?: string | undefined }[] }
  >;
  capacity: CapacitySettings;
}

/**
 * Names in `capacity` that name nothing: a provider, a route key or an account route (provider +
 * upstream model) no model calls. Each issue has the field's path.
 */
export function capacityReferenceIssues(config: Referenced): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  const routeKeys = new Set<string>();
  const accounts = new Set<string>();
  for (const [key, model] of Object.entries(config.models)) {
    routeKeys.add(key);
    accounts.add(`${model.provider}\u0000${model.model}`);
    for (const route of model.routes ?? []) {
      routeKeys.add(`${key}~${route.provider}`);
      accounts.add(`${route.provider}\u0000${route.model ?? model.model}`);
    }
  }
  for (const provider of Object.keys(config.capacity.providers)) {
    if (!Object.hasOwn(config.providers, provider))
      issues.push({ path: ['capacity', 'providers', provider], message: 'names no provider' });
  }
  for (const route of Object.keys(config.capacity.routes)) {
    if (!routeKeys.has(route))
      issues.push({
        path: ['capacity', 'routes', route],
        message: 'names no route (a model key, or <model>~<provider> for a further route)',
      });
  }
  for (const [provider, models] of Object.entries(config.capacity.quotas)) {
    for (const model of Object.keys(models)) {
      if (!accounts.has(`${provider}\u0000${model}`))
        issues.push({
          path: ['capacity', 'quotas', provider, model],
          message: `no model calls upstream model '${model}' on provider '${provider}'`,
        });
    }
  }
  return issues;
}
