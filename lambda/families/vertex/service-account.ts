/**
 * Reading a Google service-account key (the JSON file the console downloads). Only the fields a
 * token needs are read; nothing of the key ever reaches an error message.
 */
import { createPrivateKey } from 'node:crypto';
import * as z from 'zod';
import { isLoopbackHost } from '../../core/loopback.js';

/** Google's OAuth token endpoint, where a key without `token_uri` is exchanged. */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

const keySchema = z.object({
  type: z.literal('service_account', 'must be "service_account"'),
  client_email: z.email('must be the service account email'),
  private_key: z.string().min(1),
  private_key_id: z.string().optional(),
  token_uri: z
    .url({ protocol: /^https?$/ })
    .refine((uri) => uri.startsWith('https:') || isLoopbackHost(new URL(uri).hostname), {
      message: 'must be https:// (http:// only to loopback)',
    })
    .optional(),
});

/** What a token request needs from the key. */
export interface ServiceAccount {
  clientEmail: string;
  /** The PEM private key; a secret. */
  privateKey: string;
  privateKeyId?: string | undefined;
  /** Where the key is exchanged for an access token: the key's `token_uri`, else Google's. */
  tokenUri: string;
}

/**
 * Parses the key JSON. A problem is described by field name only (the text is a secret): it is
 * this process's configuration, so the caller makes it a `not_configured` failure.
 */
export function parseServiceAccount(
  text: string,
): { ok: true; account: ServiceAccount } | { ok: false; problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the service-account key is not JSON' };
  }
  const parsed = keySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.');
    if (!field) return { ok: false, problem: 'the service-account key is not a JSON object' };
    return { ok: false, problem: `the service-account key's ${field} ${issue?.message ?? 'is invalid'}` };
  }
  const key = parsed.data;
  try {
    createPrivateKey(key.private_key);
  } catch {
    return { ok: false, problem: "the service-account key's private_key is not a PEM private key" };
  }
  return {
    ok: true,
    account: {
      clientEmail: key.client_email,
      privateKey: key.private_key,
      privateKeyId: key.private_key_id,
      tokenUri: key.token_uri ?? GOOGLE_TOKEN_URI,
    },
  };
}
