import type { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createParameterSource } from '../../../lambda/aws/parameter-snapshot.js';
import { createSsmAdmissionSettings } from '../../../lambda/aws/ssm-admission-settings.js';
import { createAdmission } from '../../../lambda/core/admission/admission.js';
import { admissionSchema } from '../../../lambda/core/catalog/admission-config-schema.js';
import { createMemoryAdmissionStore } from '../../../lambda/stores/memory-admission-store.js';
import { createFakeClock, type FakeClock } from '../../helpers/fake-clock.js';
import { type FakeSsm, fakeSsmClient, startFakeSsm } from '../../helpers/fake-ssm.js';
import { recordingLog } from '../../helpers/recording-log.js';

let ssm: FakeSsm;
let client: SSMClient;
let clock: FakeClock;
const { log, lines } = recordingLog('error');

beforeAll(async () => {
  ssm = await startFakeSsm();
  client = fakeSsmClient(ssm);
});
afterAll(() => ssm.close());

let prefix = '';
let run = 0;
beforeEach(() => {
  ssm.fail('GetParametersByPath', { type: 'none' }, 0);
  run += 1;
  prefix = `/adm-${run}`;
  lines.length = 0;
  clock = createFakeClock();
});

const CONFIG = admissionSchema.parse({ keys: { k: { requestsPerMinute: 1 } } });
const NO_PRICE = { inputChars: 10, maxOutputTokens: 10, price: undefined };

function admissionOverSsm() {
  // random 0.5: no jitter, the snapshot lives exactly 30 s.
  const source = createParameterSource({ client, prefix, cacheMs: 30_000, log, clock, random: () => 0.5 });
  const settings = createSsmAdmissionSettings({ source, config: CONFIG, log });
  const admission = createAdmission({
    store: createMemoryAdmissionStore(clock),
    clock,
    settings,
    onStoreFailure: () => undefined,
  });
  const ask = async () =>
    (await admission.admit({ keyName: 'k', pipeline: undefined, reservation: NO_PRICE })).ok;
  return { settings, ask };
}

describe('admission settings from SSM', () => {
  it('picks up a changed limit once the snapshot lifetime has passed, with no deploy', async () => {
    const { ask } = admissionOverSsm();
    expect(await ask()).toBe(true);
    expect(await ask()).toBe(false);
    ssm.put(`${prefix}/admission`, JSON.stringify({ keys: { k: { requestsPerMinute: 3 } } }));
    clock.advance(29_999);
    expect(await ask()).toBe(false);
    clock.advance(1);
    // The same minute: one taken under the old limit, two more fit under the new one.
    expect(await ask()).toBe(true);
    expect(await ask()).toBe(true);
    expect(await ask()).toBe(false);
  });

  it('keeps the config when the override fails the schema, and names the field', async () => {
    ssm.put(`${prefix}/admission`, JSON.stringify({ keys: { k: { requestsPerMinute: -1 } } }));
    const { settings } = admissionOverSsm();
    expect(await settings()).toBe(CONFIG);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields).toMatchObject({ field: 'admission.keys.k.requestsPerMinute' });
    await settings();
    expect(lines).toHaveLength(1);
  });

  it('uses the config while no snapshot could be read', async () => {
    const source = createParameterSource({
      client: fakeSsmClient(ssm),
      prefix,
      cacheMs: 30_000,
      log,
      clock,
      random: () => 0.5,
    });
    ssm.fail('GetParametersByPath', { type: 'AccessDeniedException' }, 1);
    const settings = createSsmAdmissionSettings({ source, config: CONFIG, log: recordingLog().log });
    expect(await settings()).toBe(CONFIG);
  });
});
