/** Field shapes that several sections of the config share. */
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';

/** A provider's or model's name: any text of 1–200 characters. */
export const name = lazySchema(() => z.string().min(1).max(200));

/** Names that appear in chains use the DSL's name characters, so every chain can be printed and parsed back. */
export const chainName = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9\-_.:/@]+$/, 'may contain only letters, digits and - _ . : / @'),
);

/** Pipeline names become env var suffixes and SSM parameter path segments. */
export const pipelineName = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits and - _ .'),
);

export const positiveInt = lazySchema(() => z.number().int().positive());

/** The name of a caller key (never the key itself). */
export const keyName = lazySchema(() =>
  z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'key names may contain letters, digits and - _ .'),
);

/** The name of an environment variable that holds a secret (local mode). */
export const envVarName = lazySchema(() =>
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
);

/**
 * Where a provider's API key lives in AWS mode: a name starting with `/` is an SSM SecureString
 * parameter, anything else a Secrets Manager secret name.
 */
export const apiKeySecret = lazySchema(() =>
  z
    .string()
    .regex(
      /^(\/[A-Za-z0-9_.\-/]+|[A-Za-z0-9/_+=.@-]+)$/,
      'must be an SSM parameter path or a Secrets Manager name',
    ),
);
