/**
 * The token request of a service account: google-auth-library's `GoogleToken` signs the JWT
 * assertion, and this transporter posts it to the key's `token_uri` (the library itself always
 * posts to Google's endpoint), once, within `timeoutMs`: no retries, the attempt loop owns those.
 */
import { GoogleToken } from 'google-auth-library/build/src/gtoken/googleToken.js';
import { VERTEX_SCOPE } from '../../core/catalog/vertex-config-schema.js';
import { SwitchyardError } from '../../core/errors.js';
import type { ServiceAccount } from './service-account.js';

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

/** What `GoogleToken` expects of a transporter: gaxios' `request`, answered with `{ data }`. */
function transporter(tokenUri: string, timeoutMs: number) {
  return {
    async request<T>(options: { data?: unknown }): Promise<{ data: T }> {
      const res = await fetch(tokenUri, {
        method: 'POST',
        headers: { accept: 'application/json' },
        body: options.data as URLSearchParams,
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
      return { data: data as T };
    },
  };
}

/**
 * A minter of access tokens for one service account, for Vertex AI's scope. Each call asks the
 * token endpoint for a new token; caching is the caller's (`access-tokens.ts`).
 */
export function createTokenMinter(account: ServiceAccount, timeoutMs: number): () => Promise<MintedToken> {
  const google = new GoogleToken({
    email: account.clientEmail,
    key: account.privateKey,
    scope: VERTEX_SCOPE,
    // The library's type is gaxios' full signature; only `request(options) → { data }` is used.
    transporter: transporter(account.tokenUri, timeoutMs) as never,
  });
  return async () => {
    const answer = await google.getToken({ forceRefresh: true });
    const expiresInS = Number(answer.expires_in);
    if (typeof answer.access_token !== 'string' || answer.access_token === '' || !(expiresInS > 0)) {
      throw new SyntaxError('token endpoint answered without access_token and expires_in');
    }
    return { token: answer.access_token, expiresInS };
  };
}
