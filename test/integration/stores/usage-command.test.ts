import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lambda/aws/dynamodb-client.js';
import { parseConfig } from '../../../lambda/config/switchyard-config.js';
import { createAdmission } from '../../../lambda/core/admission/admission.js';
import { createDynamoDbAdmissionStore } from '../../../lambda/stores/dynamodb-admission-store.js';
import { systemClock } from '../../../lambda/wiring/system-time.js';
import { runCliCaptured, writeTempConfig } from '../../helpers/cli-harness.js';
import {
  DYNALITE_ENV,
  openBreakerTable,
  type RunningDynalite,
  startDynalite,
} from '../../helpers/dynalite.js';
import { ABC_CONFIG } from '../../helpers/test-config.js';

let dynalite: RunningDynalite;
beforeAll(async () => {
  dynalite = await startDynalite();
});
afterAll(() => dynalite.stop());

const RAW = {
  ...ABC_CONFIG,
  admission: {
    keys: { alice: { usdPerDay: 2, requestsPerMinute: 10 } },
    pipelines: { p: { tokensPerMinute: 5_000 } },
  },
};
// 1000 output tokens at $100 per million: $0.10 each.
const TEN_CENTS = { inputChars: 0, maxOutputTokens: 1_000, price: { inputPerMTok: 0, outputPerMTok: 100 } };

describe('switchyard usage', () => {
  it('prints spend, tokens and requests against each limit from DynamoDB', async () => {
    const table = await openBreakerTable(dynalite);
    const config = parseConfig(RAW);
    const admission = createAdmission({
      store: createDynamoDbAdmissionStore({
        client: createDocumentClient(table.client),
        tableName: table.tableName,
      }),
      clock: systemClock,
      settings: async () => config.admission,
      onStoreFailure: () => {},
    });
    for (let i = 0; i < 3; i += 1) {
      const outcome = await admission.admit({ keyName: 'alice', pipeline: 'p', reservation: TEN_CENTS });
      if (!outcome.ok) throw new Error('refused');
      await admission.settle(outcome.ticket, { tokens: 100, costNano: 250_000_000 });
    }
    const env = {
      ...DYNALITE_ENV,
      SWITCHYARD_STORE: 'dynamodb',
      SWITCHYARD_TABLE: table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: dynalite.endpoint,
    };
    const file = writeTempConfig(RAW);
    const json = await runCliCaptured(['usage', '--config', file, '--json'], env);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const lines = JSON.parse(json.stdout).data as { field: string; used: number; remaining: number }[];
    expect(lines.map((l) => [l.field, l.used])).toEqual([
      ['admission.keys.alice.requestsPerMinute', 3],
      ['admission.keys.alice.usdPerDay', 0.75],
      ['admission.pipelines.p.tokensPerMinute', 300],
    ]);
    const text = await runCliCaptured(['usage', '--config', file, '--key', 'alice'], env);
    expect(text.stdout).toMatch(
      /key alice +spend +\d{4}-\d\d-\d\d +\$0\.750000 +\$2\.000000 +\$1\.250000 +38%/,
    );
    expect(text.stdout).not.toContain('pipeline p');
    table.close();
  });

  it('refuses a --day that is not a UTC day, exit 2', async () => {
    const out = await runCliCaptured(['usage', '--config', writeTempConfig(RAW), '--day', '2026-13-01']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--day is not a date');
  });
});
