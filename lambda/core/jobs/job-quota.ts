/**
 * Per-key job quotas: how many unfinished jobs (queued, running or retrying) one caller key may
 * keep in the job store, so that one key cannot fill it for every other caller
 * (docs/jobs.md#quotas-per-key).
 */
import type { AdmissionSettings } from '../catalog/admission-config-schema.js';
import { SwitchyardError } from '../errors.js';

/** The quota a new job of `owner` is created under. */
export interface JobQuota {
  /** The caller key name whose unfinished jobs are counted. */
  owner: string;
  /** Most unfinished jobs of `owner`, the new one included. */
  max: number;
  /** The config field that set it, named in the refusal. */
  field: string;
}

/** The store refused a new job: its owner already has `quota.max` unfinished jobs. */
export class JobQuotaExceededError extends SwitchyardError {
  constructor(readonly quota: JobQuota) {
    super(
      `key '${quota.owner}' has reached its limit of ${quota.max} unfinished jobs (${quota.field}); retry when some finish`,
    );
    this.name = 'JobQuotaExceededError';
  }
}

/**
 * The quota of caller key `keyName` (undefined while authentication is off: no quota): its own
 * `admission.keys.<key>.maxQueuedJobs`, else, for a key not named there, `admission.defaultKey`'s,
 * else `jobs.maxQueuedPerKey` (`globalMax`).
 */
export function jobQuotaOf(
  settings: AdmissionSettings,
  keyName: string | undefined,
  globalMax: number,
): JobQuota | undefined {
  if (keyName === undefined) return undefined;
  const own = settings.keys[keyName];
  if (own?.maxQueuedJobs !== undefined)
    return { owner: keyName, max: own.maxQueuedJobs, field: `admission.keys.${keyName}.maxQueuedJobs` };
  if (!own && settings.defaultKey.maxQueuedJobs !== undefined)
    return {
      owner: keyName,
      max: settings.defaultKey.maxQueuedJobs,
      field: 'admission.defaultKey.maxQueuedJobs',
    };
  return { owner: keyName, max: globalMax, field: 'jobs.maxQueuedPerKey' };
}
