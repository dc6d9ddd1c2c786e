// `node:http` for the Lambda bundles, taken as the CommonJS module: Node's ESM facade of
// `node:http` reads every export, `WebSocket` among them, which loads undici at every cold start
// (about 10 ms of module init); `process.getBuiltinModule` hands out the module without the facade.
// lib/lambda-bundle.ts aliases `http` and `node:http` to this file.
module.exports = process.getBuiltinModule('node:http');
