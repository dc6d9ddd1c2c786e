import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type FakeRoots, fakesConfig } from '../dev/fakes/fakes-config.js';
import { type RunningFakeUpstreams, runFakeUpstreams } from '../dev/fakes/run-fake-upstreams.js';
import {
  type CliIo,
  CliUsageError,
  EXIT_OK,
  parsePort,
  processStopSignal,
  type StopSignal,
} from './cli-io.js';

export const FAKES_USAGE =
  'usage: switchyard fakes [--openai-port N] [--bedrock-port N] [--anthropic-port N] [--write-config FILE]';

/** Default ports, matching `examples/fakes.config.json` (port 0: a free port). */
export const FAKE_OPENAI_PORT = 4010;
export const FAKE_BEDROCK_PORT = 4011;
export const FAKE_ANTHROPIC_PORT = 4012;

/**
 * `switchyard fakes`: scriptable fake upstreams (OpenAI-compatible, Bedrock Converse, Anthropic
 * Messages) on loopback, until SIGINT/SIGTERM. With `--write-config FILE`, once they listen, a
 * gateway config pointing at the ports they bound is written to FILE (replaced if it exists).
 */
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
      'write-config': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new CliUsageError(FAKES_USAGE);
  const target = values['write-config'];
  if (target !== undefined && target.trim() === '')
    throw new CliUsageError('--write-config needs a file name');
  const fakes = await runFakeUpstreams({
    openaiPort: parsePort(values['openai-port'], '--openai-port') ?? FAKE_OPENAI_PORT,
    bedrockPort: parsePort(values['bedrock-port'], '--bedrock-port') ?? FAKE_BEDROCK_PORT,
    anthropicPort: parsePort(values['anthropic-port'], '--anthropic-port') ?? FAKE_ANTHROPIC_PORT,
    log: (line) => io.stdout(`${line}\n`),
  });
  if (target !== undefined) {
    const file = resolve(io.cwd, target);
    try {
      writeFileSync(file, `${JSON.stringify(fakesConfig(rootsOf(fakes)), null, 2)}\n`);
    } catch (error) {
      await fakes.close();
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
      throw new CliUsageError(`--write-config: cannot write ${file} (${code})`);
    }
    io.stdout(`\nconfig for these ports: ${file}   (switchyard serve --config ${target})\n`);
  }
  await stopSignal();
  await fakes.close();
  return EXIT_OK;
}

/** The fakes' root URLs (the OpenAI fake's `url` ends in `/v1`). */
function rootsOf(fakes: RunningFakeUpstreams): FakeRoots {
  return {
    openai: fakes.openai.url.replace(/\/v1$/, ''),
    bedrock: fakes.bedrock.url,
    anthropic: fakes.anthropic.url,
  };
}
