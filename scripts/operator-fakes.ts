/**
 * The AWS services `docs/operations.md`'s deploy steps talk to, as the project's loopback fakes, so
 * that every step that needs no AWS account can be walked on a laptop: a fake SSM, a fake Secrets
 * Manager, a fake SNS holding the alarm topic with one pending e-mail subscription, and dynalite
 * holding the caller-keys table the stack would create. Prints the environment to export, then
 * runs until interrupted (Ctrl-C).
 *
 *   npx tsx scripts/operator-fakes.ts [alarm-email]
 */
import { CALLER_KEY_TABLE_KEYS } from '../lambda/aws/caller-key-table.js';
import { ensureTable } from '../lambda/aws/ensure-table.js';
import { dynaliteDocuments } from '../test/helpers/caller-key-table.js';
import { startDynalite } from '../test/helpers/dynalite.js';
import { startFakeSecretsManager } from '../test/helpers/fake-secrets-manager.js';
import { startFakeSns } from '../test/helpers/fake-sns.js';
import { startFakeSsm } from '../test/helpers/fake-ssm.js';

const TABLE = 'Switchyard-CallerKeysTable-FAKE';
const email = process.argv[2] ?? 'oncall@example.com';
const [ssm, secrets, sns, dynalite] = await Promise.all([
  startFakeSsm(),
  startFakeSecretsManager(),
  startFakeSns(100),
  startDynalite(),
]);
const db = dynaliteDocuments(dynalite.endpoint);
await ensureTable(db.client, TABLE, { label: 'caller keys', keys: CALLER_KEY_TABLE_KEYS });
db.destroy();
const topic = sns.createTopic('Switchyard-OperationsAlarmTopic-FAKE');
sns.subscribe(topic, 'email', email, false);

console.log(
  [
    `export AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=AKIDOPERATOR AWS_SECRET_ACCESS_KEY=fake`,
    `export AWS_ENDPOINT_URL_SSM=${ssm.url} AWS_ENDPOINT_URL_SECRETS_MANAGER=${secrets.url}`,
    `export AWS_ENDPOINT_URL_SNS=${sns.url} AWS_ENDPOINT_URL_DYNAMODB=${dynalite.endpoint}`,
    `# stack outputs: CallerKeysTableName=${TABLE} AlarmTopicArn=${topic}`,
    `# the alarm e-mail ${email} is subscribed and waiting for confirmation`,
  ].join('\n'),
);
process.on('SIGINT', () => {
  void Promise.all([ssm.close(), secrets.close(), sns.close(), dynalite.stop()]).then(() => process.exit(0));
});
