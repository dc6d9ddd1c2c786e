/**
 * Secret redaction for anything that leaves the process as text: messages shown to callers and
 * log lines. Upstream error messages do echo credentials (OpenAI's "Incorrect API key provided:
 * sk-abc***123", proxies that repeat the `Authorization` header), so every upstream message is
 * passed through here before it is stored, logged or returned.
 *
 * The rules err on the side of redacting: losing a request id from a message is cheap, leaking a
 * key is not.
 */

/** What every secret is replaced with. */
export const REDACTED = '[redacted]';

/** Known key shapes, matched wherever they appear. */
const KEY_SHAPES: readonly RegExp[] = [
  // OpenAI, Anthropic (sk-ant-), OpenAI project/service keys (sk-proj-, sk-svcacct-), incl. masked `***` forms.
  /\bsk-[A-Za-z0-9_*-]{6,}/g,
  // AWS access key ids (long-term AKIA, temporary ASIA, and the other documented prefixes).
  /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
  /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,})/g, // GitHub tokens
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\b(?:gsk_|hf_|r8_|xai-)[A-Za-z0-9]{20,}/g, // Groq, Hugging Face, Replicate, xAI keys
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, // JWTs (header starts with `{"`)
];

/** OpenAI's 401 message echoes a masked key; the mask leaves enough of it to be worth hiding. */
const KEY_PROVIDED = /(api key provided:\s*)\S+?(?=[.,;]?(?:\s|$))/gi;

/** `Authorization: Bearer xxx`, or a bearer token quoted anywhere. */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi;

/** `api_key=...`, `"x-api-key": "..."`, `password: ...` in echoed headers, URLs or JSON. */
const KEY_VALUE =
  /\b(api[_-]?key|x-api-key|access[_-]?token|refresh[_-]?token|id[_-]?token|secret(?:[_-]?access)?[_-]?key|client[_-]?secret|password|authorization|x-amz-security-token|token)(["']?\s*[:=]\s*["']?)(?!\[redacted\]|Bearer\b)[^\s"',;&]+/gi;

/** 32+ hex digits: API secrets, signing keys, session ids. UUIDs (with dashes) do not match. */
const LONG_HEX = /(?<![A-Za-z0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9])/g;

/** 32+ characters of base64 / base64url, e.g. AWS secret access keys. Checked by {@link looksRandom}. */
const LONG_BASE64 = /(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{32,}={0,2}/g;

/**
 * A long run is treated as a token only when it mixes digits, upper- and lower-case letters, which
 * model ids (`mistralai/mixtral-8x22b-instruct-v0-1`) and snake_case error codes never do.
 */
function looksRandom(run: string): boolean {
  return /\d/.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run);
}

/**
 * Replaces everything that looks like a credential with `[redacted]`: provider API keys
 * (`sk-…`, `sk-proj-…`, `AKIA…`, `AIza…`, …), the key echoed in OpenAI's "Incorrect API key
 * provided" message, bearer tokens, `key=value` / `"key": "value"` credentials, JWTs, and long
 * random-looking hex or base64 runs (32+ characters).
 *
 * @param text any text, e.g. an upstream error message or a log line.
 * @returns the same text with secrets replaced; text without secrets is returned unchanged.
 */
export function redactSecrets(text: string): string {
  let out = text.replace(KEY_PROVIDED, `$1${REDACTED}`);
  for (const shape of KEY_SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(BEARER, `$1${REDACTED}`);
  out = out.replace(KEY_VALUE, `$1$2${REDACTED}`);
  out = out.replace(LONG_HEX, REDACTED);
  return out.replace(LONG_BASE64, (run) => (looksRandom(run) ? REDACTED : run));
}
