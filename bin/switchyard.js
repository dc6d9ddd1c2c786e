#!/usr/bin/env node
// The CLI is TypeScript; tsx compiles it on the fly so `npx switchyard` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('./switchyard.ts');
