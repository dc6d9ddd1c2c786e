/**
 * The token request of a service account (RFC 7523 JWT bearer grant): google-auth-library signs
 * the JWT assertion, and the assertion is posted to the key's `token_uri` once, within
 * `timeoutMs`: no retries (the attempt loop owns those). Only the library's signer is imported,
 * not its HTTP stack (gaxios, node-fetch and a streams polyfill: +0.5 MB of Lambda bundle).
 */
import { getJwsSign } from 'google-auth-library/build/src/gtoken/jwsSign.js';
import { SwitchyardError } from '../../core/errors.js';
import type { ServiceAccount } from './service-account.js';
import { VERTEX_SCOPE } from './vertex-config-schema.js';

const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The token endpoint answered outside 2xx. Carries the status and OAuth `error` code, never the body. */
export class TokenEndpointError extends SwitchyardError {
  readonly status: number;
  /** The OAuth error code (`invalid_grant`, `invalid_client`…) when the body had one. */
  readonly code: string | undefined;
  constructor(status: number, code: string | undefined) {
    super(`token endpoint answered ${status}${code ? ` ${code}` : ''}`);
    this.name = 'TokenEndpointError';
    this.status = status;
    this.code = code;
  }
}

/** A freshly minted access token. */
export interface MintedToken {
  token: string;
  /** Lifetime from the token endpoint (`expires_in`), in seconds. */
  expiresInS: number;
}

const oauthCode = (body: unknown): string | undefined => {
  const code = (body as { error?: unknown } | null)?.error;
  return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : undefined;
};

/**
 * A minter of access tokens for one service account, for Vertex AI's scope. Each call asks the
 * token endpoint for a new token; caching is the caller's (`access-tokens.ts`).
 */
export function createTokenMinter(account: ServiceAccount, timeoutMs: number): () => Promise<MintedToken> {
  return async () => {
    const assertion = getJwsSign({ iss: account.clientEmail, key: account.privateKey, scope: VERTEX_SCOPE });
    const res = await fetch(account.tokenUri, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (!res.ok) throw new TokenEndpointError(res.status, oauthCode(data));
    const answer = (data ?? {}) as { access_token?: unknown; expires_in?: unknown };
    const expiresInS = Number(answer.expires_in);
    if (typeof answer.access_token !== 'string' || answer.access_token === '' || !(expiresInS > 0)) {
      throw new SyntaxError('token endpoint answered without access_token and expires_in');
    }
    return { token: answer.access_token, expiresInS };
  };
}
