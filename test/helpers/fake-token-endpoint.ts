/**
 * A fake Google OAuth token endpoint on loopback: it checks the JWT assertion a service account
 * posts (signature against the account's public key, issuer, scope) and answers an access token,
 * unless a scripted fault says otherwise. Also makes service-account keys whose `token_uri` points at it.
 */
import { createPublicKey, createVerify, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the endpoint does with the next token request. */
export type TokenFault =
  | { status: number; error?: string }
  | { hangMs: number }
  | { expiresIn: number }
  | { malformed: true };

/** One token request the endpoint received. */
export interface TokenRequest {
  issuer: string;
  scope: string;
  /** Whether the assertion's signature checked out against a known account's key. */
  signed: boolean;
  /** The access token answered, if any. */
  token?: string;
}

export interface FakeTokenEndpoint {
  /** The `token_uri` to put in a key. */
  readonly url: string;
  readonly requests: TokenRequest[];
  /** Faults for the next requests, in order. */
  script(...faults: TokenFault[]): void;
  /** A service-account key JSON (text) whose token_uri is this endpoint; its tokens are `<name>-token-<n>`. */
  serviceAccount(name: string): string;
  /** Forgets requests and faults and numbers tokens from 1 again (accounts stay known). */
  reset(): void;
  close(): Promise<void>;
}

const base64url = (text: string) => Buffer.from(text, 'base64url').toString('utf8');

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
  });
}

export async function startFakeTokenEndpoint(): Promise<FakeTokenEndpoint> {
  const accounts = new Map<string, { publicKey: KeyObject; name: string }>();
  const faults: TokenFault[] = [];
  const requests: TokenRequest[] = [];
  let issued = 0;

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const form = new URLSearchParams(await readBody(req));
    const [header = '', payload = '', signature = ''] = (form.get('assertion') ?? '').split('.');
    const claims = JSON.parse(base64url(payload) || '{}') as { iss?: string; scope?: string };
    const account = accounts.get(claims.iss ?? '');
    const signed =
      account !== undefined &&
      createVerify('RSA-SHA256')
        .update(`${header}.${payload}`)
        .verify(account.publicKey, Buffer.from(signature, 'base64url'));
    const request: TokenRequest = { issuer: claims.iss ?? '', scope: claims.scope ?? '', signed };
    requests.push(request);
    const fault = faults.shift();
    if (fault && 'hangMs' in fault) await new Promise((resolve) => setTimeout(resolve, fault.hangMs));
    if (fault && 'status' in fault)
      return answer(res, fault.status, { error: fault.error ?? 'server_error' });
    if (fault && 'malformed' in fault) return answer(res, 200, { token_type: 'Bearer' });
    if (!signed || form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return answer(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    issued += 1;
    request.token = `${account?.name}-token-${issued}`;
    const expiresIn = fault && 'expiresIn' in fault ? fault.expiresIn : 3599;
    answer(res, 200, { access_token: request.token, expires_in: expiresIn, token_type: 'Bearer' });
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;

  return {
    url,
    requests,
    script: (...more) => faults.push(...more),
    reset() {
      requests.length = 0;
      faults.length = 0;
      issued = 0;
    },
    serviceAccount(name) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const email = `${name}@switchyard-test.iam.gserviceaccount.com`;
      accounts.set(email, {
        publicKey: createPublicKey(publicKey.export({ type: 'spki', format: 'pem' })),
        name,
      });
      return JSON.stringify({
        type: 'service_account',
        project_id: 'switchyard-test',
        private_key_id: `${name}-key-id`,
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
        client_email: email,
        token_uri: url,
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
