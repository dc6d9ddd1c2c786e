/**
 * Which Bedrock models continue a trailing assistant message (a prefill) through Converse: the
 * Anthropic Claude models, by their own id or an inference profile's (`us.anthropic.claude-…`).
 * Other models answer the conversation anew or refuse it, so they never continue a stream.
 */
export function bedrockTakesPrefill(model: string): boolean {
  return /(^|[.:/])anthropic\.claude/.test(model);
}
