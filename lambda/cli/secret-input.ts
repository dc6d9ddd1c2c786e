import { parseServiceAccount } from '../families/vertex/service-account.js';
import { type CliInput, type CliIo, CliUsageError } from './cli-io.js';

/** Largest secret read from standard input, in bytes: Secrets Manager's limit (64 KiB). */
export const MAX_SECRET_BYTES = 65_536;

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const BACKSPACES = new Set(['\u007f', '\b']);

/**
 * Reads a secret the way a shell user expects: typed at a prompt without echo when standard
 * input is a terminal, else everything piped in (`< key.txt`, `pass show … |`). Never from argv,
 * so the secret stays out of shell history and the process list. Returns the raw text; see
 * `checkProviderKey` for what is accepted.
 */
export async function readSecretInput(io: CliIo, prompt: string): Promise<string> {
  const input = io.stdin;
  if (!input)
    throw new CliUsageError('no standard input to read the key from; pipe it in or run at a terminal');
  if (input.isTTY && input.setRawMode) return readFromTerminal(input, io, prompt);
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (Buffer.byteLength(text) > MAX_SECRET_BYTES)
      throw new CliUsageError(`standard input holds more than ${MAX_SECRET_BYTES} bytes; that is no API key`);
  }
  return text;
}

function readFromTerminal(input: CliInput, io: CliIo, prompt: string): Promise<string> {
  io.stderr(prompt);
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      input.setRawMode?.(false);
      input.pause();
      io.stderr('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string | Buffer) => {
      for (const char of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (char === CTRL_C) return finish(new CliUsageError('cancelled; nothing written'));
        if (char === '\r' || char === '\n' || char === CTRL_D) return finish();
        if (BACKSPACES.has(char)) typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.setRawMode?.(true);
    input.on('data', onData);
    input.resume();
  });
}

/**
 * The key as it will be stored: surrounding whitespace (the newline of `echo` or a file) removed.
 * Refuses an empty key and one with whitespace inside (two lines piped in by mistake): no
 * provider issues such keys, and storing one would fail every request as `upstream_auth`.
 */
export function checkProviderKey(raw: string): string {
  const key = raw.trim();
  if (key === '') throw new CliUsageError('the key is empty; nothing written');
  if (/\s/.test(key))
    throw new CliUsageError(
      'the key contains whitespace or a line break; nothing written (pass exactly one line)',
    );
  return key;
}

/**
 * A `vertex` provider's key as it will be stored: the service-account key JSON, checked (the
 * fields a token needs, a PEM private key) and written on one line. The problem names a field,
 * never a value.
 */
export function checkServiceAccountKey(raw: string): string {
  const parsed = parseServiceAccount(raw.trim());
  if (!parsed.ok) throw new CliUsageError(`${parsed.problem}; nothing written`);
  return JSON.stringify(JSON.parse(raw));
}
