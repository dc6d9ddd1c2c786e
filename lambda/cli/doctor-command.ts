import { parseArgs } from 'node:util';
import { createDocumentClient } from '../aws/dynamodb-client.js';
import { callerKeysParameterName } from '../aws/ssm-caller-keys.js';
import { resolveSsmPrefix } from '../aws/ssm-chains.js';
import { loadConfig } from '../config/config-file.js';
import { createCatalog } from '../core/catalog/catalog.js';
import { checkAlarmSubscription } from './alarm-subscription-check.js';
import { type CliIo, CliUsageError, EXIT_FAILED, EXIT_OK } from './cli-io.js';
import { checkCallerKeyTable } from './doctor-caller-keys.js';
import {
  type CommandText,
  checkBedrockModelIds,
  checkCallerKeys,
  checkChainOverrides,
  checkProviderKeys,
  type DoctorLine,
} from './doctor-checks.js';
import {
  createCliDynamoDbClient,
  createCliSecretsClient,
  createCliSnsClient,
  createCliSsmClient,
} from './ssm-cli-support.js';

/** `switchyard doctor --help`. */
export const DOCTOR_USAGE = [
  'usage: switchyard doctor [--config FILE] [--keys-table NAME] [--alarm-topic ARN]',
  'checks a deployment before its first request, against the names the config and the SSM prefix give:',
  'every provider key exists, at least one caller key exists (in the --keys-table table, the CallerKeysTableName',
  'output or SWITCHYARD_KEYS_TABLE; else in <prefix>/caller-keys), every chain override under <prefix>/chains/',
  'resolves to a model, and Bedrock models use inference-profile ids; with --alarm-topic (the AlarmTopicArn',
  "stack output), that the alarm topic has a confirmed subscription (aws.alarmEmail's, when set). One line",
  'per check: ok, warn, or FIX with the command to run. Exit status 0 when nothing needs fixing, 1 otherwise.',
  'the SSM prefix is SWITCHYARD_SSM_PREFIX, else aws.ssmPrefix, else /switchyard; credentials and region',
  'come from the usual AWS variables or profile',
].join('\n');

const LABELS: Record<DoctorLine['status'], string> = { ok: 'ok', warn: 'warn', fix: 'FIX' };

/** `p`, `"<chain>"` pass as they are; anything a shell would split or expand is single-quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@<>"=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * `switchyard doctor`: a preflight of a deployment. Prints each check as it completes and a
 * summary; exit 0 when every check is ok or a warning, 1 when something needs fixing.
 */
export async function doctorCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      'alarm-topic': { type: 'string' },
      'keys-table': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new CliUsageError(DOCTOR_USAGE);
  const { config, origin } = loadConfig({ flag: values.config, env: io.env, cwd: io.cwd });
  const catalog = createCatalog(config);
  const ssmPrefix = resolveSsmPrefix(config, io.env);
  const configFlag = values.config === undefined ? [] : ['--config', values.config];
  const command: CommandText = (...words) => ['switchyard', ...words, ...configFlag].map(shellWord).join(' ');

  const region = io.env.AWS_REGION || io.env.AWS_DEFAULT_REGION || 'from the AWS profile';
  const from = origin.kind === 'file' ? origin.path : 'the embedded default';
  io.stdout(`switchyard doctor: config ${from}, SSM prefix ${ssmPrefix}, region ${region}\n\n`);

  const counts = { ok: 0, warn: 0, fix: 0 };
  const print = (lines: DoctorLine | DoctorLine[]) => {
    for (const l of [lines].flat()) {
      counts[l.status] += 1;
      io.stdout(`${LABELS[l.status].padEnd(4)}  ${l.subject}: ${l.text}\n`);
    }
  };

  const ssm = createCliSsmClient(io.env);
  print(await checkProviderKeys(config, { ssm, secrets: createCliSecretsClient(io.env) }, command));
  const keysTable = (values['keys-table'] ?? io.env.SWITCHYARD_KEYS_TABLE?.trim()) || undefined;
  const parameter = callerKeysParameterName(ssmPrefix);
  print(
    keysTable
      ? await checkCallerKeyTable(
          createDocumentClient(createCliDynamoDbClient(io.env)),
          keysTable,
          ssm,
          parameter,
          command,
        )
      : await checkCallerKeys(ssm, parameter, command),
  );
  print(await checkChainOverrides(ssm, ssmPrefix, catalog, command));
  print(checkBedrockModelIds(config));
  print(
    await checkAlarmSubscription(createCliSnsClient(io.env), values['alarm-topic'], config.aws.alarmEmail),
  );

  const warnings = counts.warn > 0 ? `, ${counts.warn} warning${counts.warn === 1 ? '' : 's'}` : '';
  if (counts.fix === 0) {
    io.stdout(`\nready: ${counts.ok} checks ok${warnings}\n`);
    return EXIT_OK;
  }
  io.stdout(`\nnot ready: ${counts.fix} to fix${warnings}, ${counts.ok} ok\n`);
  return EXIT_FAILED;
}
