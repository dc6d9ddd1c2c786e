/**
 * What the Bedrock fake reads from a Converse / ConverseStream request body. Loose on purpose:
 * only the fields the fake uses are checked.
 */
import * as z from 'zod';

const textBlockSchema = z.looseObject({ text: z.string().optional() });

const contentBlockSchema = z.looseObject({
  text: z.string().optional(),
  toolResult: z.looseObject({ content: z.array(textBlockSchema).optional() }).optional(),
});

/** The fields of a Converse request body the fake relies on (the model id is in the path). */
export const converseRequestSchema = z.looseObject({
  messages: z
    .array(z.looseObject({ role: z.enum(['user', 'assistant']), content: z.array(contentBlockSchema) }))
    .min(1),
  system: z.array(textBlockSchema).optional(),
  inferenceConfig: z
    .looseObject({
      maxTokens: z.int().positive().optional(),
      stopSequences: z.array(z.string()).optional(),
    })
    .optional(),
  toolConfig: z.looseObject({ tools: z.array(z.unknown()) }).optional(),
});

/** A validated Converse request body. */
export type ConverseRequestBody = z.infer<typeof converseRequestSchema>;

/** Text of the last user message (text blocks joined), for `echoPrompt`; '' when there is none. */
export function bedrockLastUserText(body: ConverseRequestBody): string {
  const last = body.messages.findLast((message) => message.role === 'user');
  return (last?.content ?? []).map((block) => block.text ?? '').join('');
}

/**
 * Characters of prompt text: system blocks, text blocks and tool-result text blocks. Counted
 * like the OpenAI fake, so the same prompt costs the same tokens through either provider.
 */
export function bedrockPromptChars(body: ConverseRequestBody): number {
  let chars = 0;
  for (const block of body.system ?? []) chars += block.text?.length ?? 0;
  for (const message of body.messages) {
    for (const block of message.content) {
      chars += block.text?.length ?? 0;
      for (const inner of block.toolResult?.content ?? []) chars += inner.text?.length ?? 0;
    }
  }
  return chars;
}

/** The text of a trailing assistant message (a prefill the model continues), if the conversation ends with one. */
export function bedrockPrefill(body: ConverseRequestBody): string | undefined {
  const last = body.messages.at(-1);
  if (last?.role !== 'assistant') return undefined;
  return last.content.map((block) => block.text ?? '').join('');
}
