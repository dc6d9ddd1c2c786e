/**
 * The front doors the app mounts, in order: one line per door (docs/design.md#front-doors-and-the-request-lifecycle). A new
 * door is its folder under `lambda/doors/` and its line here.
 */
import { anthropicMessagesDoor } from './anthropic-messages/messages-route.js';
import { embeddingsDoor } from './embeddings/embeddings-route.js';
import { jobsDoor } from './jobs/jobs-routes.js';
import { openAIChatDoor } from './openai-chat/chat-completions.js';
import { openAIResponsesDoor } from './openai-responses/responses-route.js';
import type { Door } from './shared/door.js';

export const DOORS: readonly Door[] = [
  openAIChatDoor,
  openAIResponsesDoor,
  anthropicMessagesDoor,
  embeddingsDoor,
  jobsDoor,
];
