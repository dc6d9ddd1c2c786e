import { generateKeyPairSync } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type CliInput, type CliIo, CliUsageError } from '../../../lambda/cli/cli-io.js';
import {
  checkProviderKey,
  checkServiceAccountKey,
  MAX_SECRET_BYTES,
  readSecretInput,
} from '../../../lambda/cli/secret-input.js';

/** A terminal as Node presents one: a stream with `isTTY` and `setRawMode`, recording the modes set. */
function fakeTerminal() {
  const stream = new PassThrough({ encoding: 'utf8' });
  const modes: boolean[] = [];
  const terminal = Object.assign(stream, {
    isTTY: true,
    setRawMode: (mode: boolean) => modes.push(mode),
  }) as unknown as CliInput;
  return { terminal, stream, modes };
}

function ioWith(stdin: CliInput | undefined) {
  let stderr = '';
  const io: CliIo = {
    stdout: () => {},
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    cwd: '/',
    stdin,
  };
  return { io, stderr: () => stderr };
}

describe('reading a secret at a terminal', () => {
  it('reads what is typed without echoing it, and restores the terminal', async () => {
    const { terminal, stream, modes } = fakeTerminal();
    const { io, stderr } = ioWith(terminal);
    const read = readSecretInput(io, 'key: ');
    stream.write('sk-se');
    stream.write('cret\r');
    expect(await read).toBe('sk-secret');
    expect(stderr()).toBe('key: \n');
    expect(modes).toEqual([true, false]);
  });

  it('lets backspace remove the last character typed', async () => {
    const { terminal, stream } = fakeTerminal();
    const read = readSecretInput(ioWith(terminal).io, 'key: ');
    stream.write('sk-abX\u007fc\n');
    expect(await read).toBe('sk-abc');
  });

  it('stops at the first line end of a pasted chunk', async () => {
    const { terminal, stream } = fakeTerminal();
    const read = readSecretInput(ioWith(terminal).io, 'key: ');
    stream.write('sk-pasted\r\nleftover');
    expect(await read).toBe('sk-pasted');
  });

  it('cancels on Ctrl-C with nothing written, and restores the terminal', async () => {
    const { terminal, stream, modes } = fakeTerminal();
    const read = readSecretInput(ioWith(terminal).io, 'key: ');
    stream.write('sk-half\u0003');
    await expect(read).rejects.toThrow(new CliUsageError('cancelled; nothing written'));
    expect(modes).toEqual([true, false]);
  });
});

describe('reading a secret from a pipe', () => {
  it('reads everything piped in, across chunks', async () => {
    const { io } = ioWith(Readable.from(['sk-', 'piped\n']) as unknown as CliInput);
    expect(await readSecretInput(io, 'key: ')).toBe('sk-piped\n');
  });

  it('refuses more than 64 KiB', async () => {
    const { io } = ioWith(Readable.from(['x'.repeat(MAX_SECRET_BYTES), 'y']) as unknown as CliInput);
    await expect(readSecretInput(io, 'key: ')).rejects.toThrow(/more than 65536 bytes/);
  });

  it('accepts exactly 64 KiB', async () => {
    const { io } = ioWith(Readable.from(['x'.repeat(MAX_SECRET_BYTES)]) as unknown as CliInput);
    expect(await readSecretInput(io, 'key: ')).toHaveLength(MAX_SECRET_BYTES);
  });

  it('refuses when there is no standard input at all', async () => {
    await expect(readSecretInput(ioWith(undefined).io, 'key: ')).rejects.toThrow(CliUsageError);
  });
});

describe('checkProviderKey', () => {
  it.each([
    ['sk-abc\n', 'sk-abc'],
    ['  sk-abc  \r\n', 'sk-abc'],
    ['AIzaSy-0123_abc', 'AIzaSy-0123_abc'],
  ])('keeps %j as %j', (raw, key) => {
    expect(checkProviderKey(raw)).toBe(key);
  });

  it.each([
    ['', 'the key is empty'],
    [' \n\t', 'the key is empty'],
    ['sk-one\nsk-two', 'whitespace or a line break'],
    ['sk one', 'whitespace or a line break'],
  ])('refuses %j', (raw, message) => {
    expect(() => checkProviderKey(raw)).toThrow(message);
  });
});

describe('checkServiceAccountKey', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const key = {
    type: 'service_account',
    client_email: 'sa@acme-prod.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
  };

  it('stores the key JSON as downloaded (several lines) on one line', () => {
    const stored = checkServiceAccountKey(`${JSON.stringify(key, null, 2)}\n`);
    expect(stored).not.toContain('\n');
    expect(JSON.parse(stored)).toEqual(key);
  });

  it.each([
    ['not JSON', 'sk-not-a-json-key', 'the service-account key is not JSON; nothing written'],
    ['an API key in quotes', '"sk-abc"', 'the service-account key is not a JSON object'],
    [
      'a user credential',
      JSON.stringify({ ...key, type: 'authorized_user' }),
      "the service-account key's type",
    ],
    [
      'a broken private key',
      JSON.stringify({ ...key, private_key: 'x' }),
      'private_key is not a PEM private key',
    ],
  ])('refuses %s, naming the problem and never the value', (_label, raw, problem) => {
    expect(() => checkServiceAccountKey(raw)).toThrow(problem);
    try {
      checkServiceAccountKey(raw);
    } catch (error) {
      expect((error as Error).message).not.toContain('PRIVATE KEY');
    }
  });
});
