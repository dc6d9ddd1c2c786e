import { paginateGetParametersByPath, type SSMClient } from '@aws-sdk/client-ssm';
import { CallerKeysValueError, readCallerKeysParameter } from '../aws/ssm-caller-keys.js';
import { chainOverridesPath } from '../aws/ssm-chains.js';
import type { SwitchyardConfig } from '../config/switchyard-config.js';
import type { Catalog } from '../core/catalog/catalog.js';
import { describeOverride, readOverride } from '../core/catalog/chain-override.js';
import {
  describeLocation,
  type ProviderKeyClients,
  providerKeyLocations,
  providerKeyStates,
} from './provider-key-store.js';
import { describeAwsError, SsmCommandError } from './ssm-cli-support.js';

/** One line of `switchyard doctor`: `ok`, `warn` (does not fail the run) or `FIX` (exit 1). */
export interface DoctorLine {
  status: 'ok' | 'warn' | 'fix';
  subject: string;
  text: string;
}

/** Builds the exact command to print, e.g. `switchyard chain clear p --config ./c.json`. */
export type CommandText = (...args: string[]) => string;

const line = (status: DoctorLine['status'], subject: string, text: string): DoctorLine => ({
  status,
  subject,
  text,
});

/** A check SSM could not answer: the reason, with what to check (credentials, region, endpoint). */
const failure = (subject: string, error: unknown): DoctorLine =>
  line(
    'fix',
    subject,
    `cannot check: ${error instanceof SsmCommandError ? error.message : describeAwsError(error)}`,
  );

/** Every provider key the config names exists where it says (values are never read). */
export async function checkProviderKeys(
  config: SwitchyardConfig,
  clients: ProviderKeyClients,
  command: CommandText,
): Promise<DoctorLine[]> {
  const locations = providerKeyLocations(config);
  let states: Awaited<ReturnType<typeof providerKeyStates>>;
  try {
    states = await providerKeyStates(locations, clients);
  } catch (error) {
    return [failure('provider keys', error)];
  }
  return locations.map((l) => {
    const subject = `provider key ${l.provider}`;
    if (l.kind === 'not-needed') return line('ok', subject, `no key needed (${l.why})`);
    if (l.kind === 'unset') {
      return line(
        'fix',
        subject,
        `the config names no apiKeySecret (apiKeyEnv ${l.apiKeyEnv} exists only locally) → add "apiKeySecret": "/switchyard/keys/${l.provider}" to providers.${l.provider}, deploy, then ${command('provider-keys', 'set', l.provider)}`,
      );
    }
    const where = describeLocation(l);
    const state = states.get(l.name);
    const set = command('provider-keys', 'set', l.provider);
    switch (state?.state) {
      case 'present':
        return state.note
          ? line('warn', subject, `${where} (${state.detail}) is ${state.note} → ${set}`)
          : line('ok', subject, `${where} (${state.detail})`);
      case 'missing':
        return line('fix', subject, `missing at ${where} → ${set}`);
      case 'unusable':
        return line('fix', subject, `${where}: ${state.why} → ${set}`);
      default:
        return line('fix', subject, `cannot tell whether ${where} exists: ${state?.why ?? 'no answer'}`);
    }
  });
}

/** At least one caller key exists in `<prefix>/caller-keys`, so some caller can get in. */
export async function checkCallerKeys(client: SSMClient, parameter: string, command: CommandText) {
  const issue = command('keys', 'issue', '<name>', '--ssm');
  try {
    const { keys, version } = await readCallerKeysParameter(client, parameter);
    const count = Object.keys(keys).length;
    if (count > 0) return line('ok', 'caller keys', `${count} in ${parameter} (version ${version})`);
    const why = version === undefined ? 'does not exist' : 'holds no keys';
    return line('fix', 'caller keys', `${parameter} ${why}, so the API refuses every caller → ${issue}`);
  } catch (error) {
    if (error instanceof CallerKeysValueError)
      return line(
        'fix',
        'caller keys',
        `${error.message}; the API refuses every caller → ${issue} --replace`,
      );
    return failure('caller keys', error);
  }
}

/**
 * Every parameter under `<prefix>/chains/` is an override of a configured pipeline and resolves
 * to at least one model. One that resolves to nothing is skipped by the gateway (the pipeline
 * silently runs on its config chain), which is what an operator needs to hear about.
 */
export async function checkChainOverrides(
  client: SSMClient,
  ssmPrefix: string,
  catalog: Catalog,
  command: CommandText,
): Promise<DoctorLine[]> {
  const path = chainOverridesPath(ssmPrefix);
  const found: { name: string; value: string }[] = [];
  try {
    for await (const page of paginateGetParametersByPath(
      { client },
      { Path: path, Recursive: true, WithDecryption: true },
    )) {
      for (const p of page.Parameters ?? [])
        if (p.Name && p.Value !== undefined) found.push({ name: p.Name, value: p.Value });
    }
  } catch (error) {
    return [failure('chain overrides', error)];
  }
  if (found.length === 0)
    return [line('ok', 'chain overrides', `none under ${path}/; every pipeline runs on its config chain`)];
  return found
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ name, value }) => {
      const pipeline = name.slice(path.length + 1);
      const subject = `chain override ${pipeline}`;
      if (pipeline.includes('/'))
        return line(
          'warn',
          subject,
          `${name} is nested, so the gateway never reads it → aws ssm delete-parameter --name ${name}`,
        );
      const clear = command('chain', 'clear', pipeline);
      if (!catalog.hasPipeline(pipeline))
        return line(
          'warn',
          subject,
          `the config has no pipeline ${pipeline}, so nothing routes by ${name} → ${clear}`,
        );
      return overrideLine(value, catalog, subject, {
        set: command('chain', 'set', pipeline, '"<chain>"'),
        clear,
      });
    });
}

/**
 * One override's line: a plain chain, or a document (docs/design.md#timed-overrides-and-canaries)
 * whose every chain (steady, timed, canary) must resolve to a model.
 */
function overrideLine(
  value: string,
  catalog: Catalog,
  subject: string,
  fixes: { set: string; clear: string },
): DoctorLine {
  const reading = readOverride(value);
  if (!reading.ok)
    return line(
      'fix',
      subject,
      `${reading.problem}; the gateway skips it and routes by the config chain → ${fixes.clear}`,
    );
  const { document } = reading;
  const shown = value.trim().startsWith('{') ? describeOverride(document) : value;
  const chains = [document.chain, document.timed?.chain, document.canary?.chain].filter(
    (chain): chain is string => chain !== undefined,
  );
  const allWarnings: string[] = [];
  for (const chain of chains) {
    const parsed = catalog.parse(chain);
    const warnings = parsed.warnings.map((w) => w.message).join('; ');
    if (parsed.tiers.length === 0) {
      return line(
        'fix',
        subject,
        `'${chain}' resolves to no model (${warnings || 'empty'}); the gateway skips it and routes by the config chain → ${fixes.set} or ${fixes.clear}`,
      );
    }
    if (warnings) allWarnings.push(warnings);
  }
  if (allWarnings.length > 0)
    return line('warn', subject, `'${shown}' is in force, with warnings: ${allWarnings.join('; ')}`);
  return line('ok', subject, `'${shown}' is in force`);
}

/**
 * Prefixes of Bedrock's system-defined cross-Region inference profiles (`us.anthropic…`), as AWS
 * names them today (the CDK's `CrossRegionInferenceProfileRegion` lists the same seven).
 */
export const INFERENCE_PROFILE_PREFIXES = ['us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'global'];

function profilePrefixFor(region: string): string {
  if (region.startsWith('us-gov-')) return 'us-gov';
  if (region.startsWith('us-')) return 'us';
  if (region.startsWith('eu-')) return 'eu';
  if (region.startsWith('ap-')) return 'apac';
  return 'global';
}

/**
 * Bedrock serves most current models on demand only through an inference profile: a bare base
 * model id (`anthropic.claude-…`) then fails as `model_not_found`. A warning, not a failure: some
 * older models are still served by their base id.
 */
export function checkBedrockModelIds(config: SwitchyardConfig): DoctorLine[] {
  const lines: DoctorLine[] = [];
  let count = 0;
  for (const [key, model] of Object.entries(config.models).sort(([a], [b]) => a.localeCompare(b))) {
    const provider = config.providers[model.provider];
    if (provider?.type !== 'bedrock') continue;
    count += 1;
    const prefix = model.model.split('.')[0] ?? '';
    if (model.model.startsWith('arn:') || INFERENCE_PROFILE_PREFIXES.includes(prefix)) continue;
    const suggested = `${profilePrefixFor(provider.region)}.${model.model}`;
    lines.push(
      line(
        'warn',
        `bedrock model ${key}`,
        `'${model.model}' is a base model id; on-demand calls may need the inference profile '${suggested}' (aws bedrock list-inference-profiles --region ${provider.region}) → change models.${key}.model`,
      ),
    );
  }
  if (count > 0 && lines.length === 0)
    lines.push(
      line(
        'ok',
        'bedrock models',
        count === 1 ? '1 model, by inference profile' : `${count} models, all by inference profile`,
      ),
    );
  return lines;
}
