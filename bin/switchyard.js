#!/usr/bin/env node
// Switchyard runs on Node 24 (docs/toolchain.md). Where npm installs no Node for the project
// (Apple Silicon, Windows) the machine's older one would run until something it lacks fails, and
// npm's engine warning is quiet (.npmrc): say it here, once, before anything loads.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(
    `Switchyard needs Node.js 24 or newer; this is ${process.versions.node} (${process.execPath}). See docs/toolchain.md.`,
  );
  process.exit(1);
}

// The CLI is TypeScript; tsx compiles it on the fly so `npx switchyard` needs no build step.
const { register } = await import('tsx/esm/api');
register();
await import('./switchyard.ts');
