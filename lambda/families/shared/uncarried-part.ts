import type { ContentPart } from '../../core/chat/chat-model.js';
import { ProviderError } from '../../core/failures/provider-error.js';
import type { ErrorSubject } from './malformed-response.js';

/**
 * The error of a part this family has no wire form for (e.g. an image URL on Converse). The
 * router never sends such a request to a route whose capabilities say so
 * (docs/concepts.md#capabilities); reaching here means a model's `capabilities` override claims
 * more than its family carries, so the request stops as `invalid_request` naming the part, rather
 * than going out with the part stripped.
 */
export function uncarriedPart(subject: ErrorSubject, part: ContentPart, where: string): ProviderError {
  const what =
    part.type === 'text' ? 'text' : `${part.type} by ${part.source.kind === 'url' ? 'URL' : 'data'}`;
  return new ProviderError({
    ...subject,
    failureClass: 'invalid_request',
    message: `provider '${subject.provider}' cannot carry a ${what} in ${where} (check models.${subject.model}.capabilities)`,
  });
}

/** A `data:` URL of inline bytes (base64), as the OpenAI-compatible families take images and files. */
export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}
