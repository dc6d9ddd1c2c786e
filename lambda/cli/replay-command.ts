import { parseArgs } from 'node:util';
import { GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ConfigError, SwitchyardError } from '../core/errors.js';
import {
  type ReplayProgress,
  type ReplaySummary,
  replayAddressesOf,
  replayDeadLetters,
} from '../jobs/aws/dlq-replay.js';
import { createJobSqsClient, jobQueueSettings } from '../jobs/aws/ensure-job-queues.js';
import { type CliIo, CliUsageError, EXIT_FAILED, EXIT_OK } from './cli-io.js';
import { formatTable } from './format-table.js';

export const REPLAY_USAGE =
  'usage: switchyard replay [--dry-run] [--max N] [--queue URL] [--json]\n' +
  '  the job queue: --queue, else SWITCHYARD_JOB_QUEUE_URL, else the queue named SWITCHYARD_JOB_QUEUE\n' +
  '  (default switchyard-jobs) at AWS_ENDPOINT_URL_SQS or in AWS; its dead-letter queue comes from its RedrivePolicy';

/** An SQS call failed: one line for the operator, exit status 1. */
export class ReplayCommandError extends SwitchyardError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ReplayCommandError';
  }
}

function describeSqsError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = 'code' in error ? String(error.code) : '';
  if (error.name === 'CredentialsProviderError' || /could not load credentials/i.test(error.message))
    return 'no AWS credentials found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
  if (/region is missing/i.test(error.message)) return 'no AWS region: set AWS_REGION (e.g. us-east-1)';
  if (/^(ECONNREFUSED|ENOTFOUND|ECONNRESET|ETIMEDOUT|EAI_AGAIN)$/.test(code))
    return `cannot reach SQS (${code}); check the network, AWS_REGION or AWS_ENDPOINT_URL_SQS`;
  const message = error.message.split('\n')[0]?.trim();
  return `${error.name}${message ? `: ${message}` : ''}`;
}

async function sqsCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof CliUsageError || error instanceof ConfigError) throw error;
    throw new ReplayCommandError(`${what}: ${describeSqsError(error)}`, { cause: error });
  }
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new CliUsageError(`${flag} must be a positive whole number, not '${value}'`);
  return n;
}

async function sourceQueueUrl(client: SQSClient, flag: string | undefined, env: NodeJS.ProcessEnv) {
  if (flag !== undefined) {
    if (!/^https?:\/\//.test(flag)) throw new CliUsageError(`--queue must be a queue URL, not '${flag}'`);
    return flag;
  }
  const settings = jobQueueSettings(env);
  if (settings.queueUrl) return settings.queueUrl;
  const { QueueUrl } = await sqsCall(`cannot find queue '${settings.queueName}'`, () =>
    client.send(new GetQueueUrlCommand({ QueueName: settings.queueName })),
  );
  if (!QueueUrl) throw new ReplayCommandError(`no URL for queue '${settings.queueName}'`);
  return QueueUrl;
}

function progressLine(p: ReplayProgress): string {
  const of = p.toMove !== undefined ? `/${p.toMove}` : '';
  const failed = p.failed > 0 ? `, ${p.failed} failed` : '';
  return `replay: ${p.moved}${of} moved (${p.method})${failed}\n`;
}

function summaryTable(
  s: ReplaySummary,
  where: { dlqUrl: string; queueUrl: string; max: number | undefined },
): string {
  const wouldMove = Math.min(s.waiting, where.max ?? s.waiting);
  const ids =
    s.jobIds.length > 0 ? `${s.jobIds.slice(0, 10).join(', ')}${s.jobIds.length > 10 ? ', …' : ''}` : '-';
  const rows: string[][] = [
    ['dead-letter queue', where.dlqUrl],
    ['source queue', where.queueUrl],
    ['method', s.method],
    ['waiting before', String(s.waiting)],
    [s.dryRun ? 'would move' : 'moved', String(s.dryRun ? wouldMove : s.moved)],
    ['failed', String(s.failed)],
    ['not job messages', String(s.malformed)],
    ['job ids', ids],
  ];
  if (s.taskStatus)
    rows.push(['move task', `${s.taskStatus}${s.failureReason ? ` (${s.failureReason})` : ''}`]);
  return `${formatTable(['', s.dryRun ? 'DRY RUN' : 'REPLAY'], rows)}\n`;
}

/**
 * `switchyard replay`: moves the job queue's dead-letter messages back to the queue, with SQS's
 * `StartMessageMoveTask` when the endpoint has it and no `--max` is given, else receive → send →
 * delete. Jobs are idempotent on their id: a replayed job that already succeeded is acknowledged
 * without running or delivering again. `--dry-run` counts and lists what a replay would move.
 * Exit 0 when nothing failed, 1 when some messages could not be moved or SQS refused.
 */
export async function replayCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'dry-run': { type: 'boolean', default: false },
      max: { type: 'string' },
      queue: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new CliUsageError(REPLAY_USAGE);
  const max = positiveInt(values.max, '--max');
  const client = createJobSqsClient(jobQueueSettings(io.env));
  try {
    const queueUrl = await sourceQueueUrl(client, values.queue, io.env);
    const addresses = await sqsCall(`cannot read the dead-letter queue of ${queueUrl}`, () =>
      replayAddressesOf(client, queueUrl),
    );
    const dryRun = values['dry-run'];
    if (!values.json) {
      const limit = max === undefined ? '' : ` (at most ${max})`;
      io.stdout(`replay: ${dryRun ? 'looking at' : 'moving'} ${addresses.dlqUrl} → ${queueUrl}${limit}\n`);
    }
    const summary = await sqsCall('replay failed', () =>
      replayDeadLetters({
        client,
        dlqArn: addresses.dlqArn,
        dlqUrl: addresses.dlqUrl,
        sourceArn: addresses.queueArn,
        sourceUrl: addresses.queueUrl,
        maxMessages: max,
        dryRun,
        onProgress: values.json ? undefined : (p) => io.stdout(progressLine(p)),
      }),
    );
    io.stdout(
      values.json
        ? `${JSON.stringify(summary)}\n`
        : summaryTable(summary, { dlqUrl: addresses.dlqUrl, queueUrl, max }),
    );
    if (summary.failed > 0) {
      io.stderr(
        `switchyard replay: ${summary.failed} message(s) stayed in the dead-letter queue; run replay again\n`,
      );
      return EXIT_FAILED;
    }
    return EXIT_OK;
  } finally {
    client.destroy();
  }
}
