import { describe, expect, it } from 'vitest';
import { storedTicket } from '../../../lambda/core/admission/stored-ticket.js';
import { admissionSchema } from '../../../lambda/core/catalog/admission-config-schema.js';
import { jobQuotaOf } from '../../../lambda/core/jobs/job-quota.js';

const settings = admissionSchema.parse({
  keys: { alice: { maxQueuedJobs: 3 }, bob: { usdPerDay: 1 } },
  defaultKey: { maxQueuedJobs: 7 },
});

describe('job quota of a key', () => {
  it.each([
    ['alice', 3, 'admission.keys.alice.maxQueuedJobs'],
    // A named key's own limits replace defaultKey's; without its own quota the global default applies.
    ['bob', 100, 'jobs.maxQueuedPerKey'],
    ['carol', 7, 'admission.defaultKey.maxQueuedJobs'],
  ])('gives %s a quota of %i from %s', (key, max, field) => {
    expect(jobQuotaOf(settings, key, 100)).toEqual({ owner: key, max, field });
  });

  it('gives no quota without authentication (no key)', () => {
    expect(jobQuotaOf(settings, undefined, 100)).toBeUndefined();
  });

  it('falls back to jobs.maxQueuedPerKey when no admission setting names a quota', () => {
    expect(jobQuotaOf(admissionSchema.parse({}), 'dave', 5)).toEqual({
      owner: 'dave',
      max: 5,
      field: 'jobs.maxQueuedPerKey',
    });
  });

  it('refuses a quota of 0 in the config, naming the field', () => {
    const parsed = admissionSchema.safeParse({ keys: { alice: { maxQueuedJobs: 0 } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['keys', 'alice', 'maxQueuedJobs']);
  });

  it('accepts no quota on a pipeline: it counts keys, not pipelines', () => {
    expect(admissionSchema.safeParse({ pipelines: { p: { maxQueuedJobs: 3 } } }).success).toBe(false);
  });
});

describe('stored ticket', () => {
  it('reads back nothing from a record without one, or with something malformed', () => {
    expect(storedTicket(undefined)).toBeUndefined();
    expect(storedTicket({ holds: [], reserved: { tokens: 1, costNano: 1 } })).toBeUndefined();
    expect(storedTicket({ holds: [{ amount: 'x' }], reserved: {} })).toBeUndefined();
  });
});
