import { parseArgs } from 'node:util';
import { runFakeUpstreams } from '../dev/fakes/run-fake-upstreams.js';
import {
  type CliIo,
  CliUsageError,
  EXIT_OK,
  parsePort,
  processStopSignal,
  type StopSignal,
} from './cli-io.js';

export const FAKES_USAGE =
  'usage: switchyard fakes [--openai-port N] [--bedrock-port N] [--anthropic-port N]';

/** Default ports, matching `examples/fakes.config.json`. */
export const FAKE_OPENAI_PORT = 4010;
export const FAKE_BEDROCK_PORT = 4011;
export const FAKE_ANTHROPIC_PORT = 4012;

/** `switchyard fakes`: scriptable fake upstreams on loopback, until SIGINT/SIGTERM. */
export async function fakesCommand(
  args: string[],
  io: CliIo,
  stopSignal: StopSignal = processStopSignal,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'openai-port': { type: 'string' },
      'bedrock-port': { type: 'string' },
      'anthropic-port': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new CliUsageError(FAKES_USAGE);
  const fakes = await runFakeUpstreams({
    openaiPort: parsePort(values['openai-port'], '--openai-port') ?? FAKE_OPENAI_PORT,
    bedrockPort: parsePort(values['bedrock-port'], '--bedrock-port') ?? FAKE_BEDROCK_PORT,
    anthropicPort: parsePort(values['anthropic-port'], '--anthropic-port') ?? FAKE_ANTHROPIC_PORT,
    log: (line) => io.stdout(`${line}\n`),
  });
  await stopSignal();
  await fakes.close();
  return EXIT_OK;
}
