import type { SSMClient } from '@aws-sdk/client-ssm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listCallerKeys } from '../aws/caller-key-admin.js';
import { readAuthoritative } from '../aws/caller-key-table.js';
import { CallerKeysValueError, readCallerKeysParameter } from '../aws/ssm-caller-keys.js';
import type { CommandText, DoctorLine } from './doctor-checks.js';
import { describeAwsError, SsmCommandError } from './ssm-cli-support.js';

const SUBJECT = 'caller keys';
const line = (status: DoctorLine['status'], text: string): DoctorLine => ({ status, subject: SUBJECT, text });

/**
 * The caller keys in the stack's table (`CallerKeysTableName`): at least one key, and no key left
 * only in the SSM parameter `<prefix>/caller-keys` once the table decides alone. Names are counted;
 * no key and no hash is printed.
 */
export async function checkCallerKeyTable(
  documents: DynamoDBDocumentClient,
  tableName: string,
  ssm: SSMClient,
  parameter: string,
  command: CommandText,
): Promise<DoctorLine> {
  const add = command('keys', 'add', '<name>', '--table', tableName);
  const migrate = command('keys', 'migrate', '--table', tableName);
  try {
    const [keys, authoritative] = await Promise.all([
      listCallerKeys(documents, tableName),
      readAuthoritative(documents, tableName),
    ]);
    let legacy: Record<string, string> = {};
    try {
      legacy = (await readCallerKeysParameter(ssm, parameter)).keys;
    } catch (error) {
      if (!(error instanceof CallerKeysValueError)) throw error;
    }
    const inTable = new Map(keys.map((k) => [k.name, k.hash]));
    const waiting = Object.entries(legacy).filter(([name, hash]) => inTable.get(name) !== hash).length;
    if (waiting > 0 && !authoritative)
      return line(
        'fix',
        `${waiting} key(s) only in ${parameter}: the API still accepts them, but reads SSM for them (throttled at a spike) → ${migrate} (a dry run), then again with --apply`,
      );
    if (keys.length === 0)
      return line('fix', `table ${tableName} holds no key, so the API refuses every caller → ${add}`);
    const stale = waiting > 0 ? `; ${parameter} still holds ${waiting} key(s) the API no longer reads` : '';
    return line(
      waiting > 0 ? 'warn' : 'ok',
      `${keys.length} in table ${tableName}${authoritative ? '' : ' (not yet marked as the only source)'}${stale}`,
    );
  } catch (error) {
    return line(
      'fix',
      `cannot check: ${error instanceof SsmCommandError ? error.message : describeAwsError(error)}`,
    );
  }
}
