// One execution environment of the API Lambda, in its own process (run under a CPU share by
// measure-handler.ts): imports the bundle as the runtime does, times the import (module init),
// then sends WARMUP + N chat events one at a time and writes the CPU and wall time per request
// to PROBE_OUT. Plain JavaScript, so no loader runs inside the measured process.
import { readFileSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';

globalThis.awslambda = {
  streamifyResponse: (f) => f,
  // The prelude (status and headers) goes first, as the runtime writes it.
  HttpResponseStream: {
    from: (stream, prelude) => {
      stream.write(JSON.stringify(prelude));
      return stream;
    },
  },
};
const { PROBE_BUNDLE, PROBE_EVENT, PROBE_OUT, PROBE_REQUESTS, PROBE_WARMUP } = process.env;
const event = JSON.parse(readFileSync(PROBE_EVENT, 'utf8'));
const cpuBefore = process.cpuUsage();
const t0 = performance.now();
const { handler } = await import(PROBE_BUNDLE);
const initMs = performance.now() - t0;
const initCpu = process.cpuUsage(cpuBefore);

let n = 0;
async function invoke() {
  n += 1;
  const stream = new PassThrough();
  let status = '';
  stream.on('data', (chunk) => {
    if (!status) status = chunk.toString('utf8', 0, 40);
  });
  const context = {
    functionName: 'Switchyard-ApiFunctionHandler',
    functionVersion: '1',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:Switchyard-ApiFunctionHandler',
    memoryLimitInMB: '1024',
    awsRequestId: `probe-${n}`,
    logGroupName: '/aws/lambda/probe',
    logStreamName: 'probe',
    getRemainingTimeInMillis: () => 30_000,
    callbackWaitsForEmptyEventLoop: false,
  };
  await handler(structuredClone(event), stream, context);
  return status;
}

const first = await invoke();
for (let i = 1; i < Number(PROBE_WARMUP); i++) await invoke();
const requests = Number(PROBE_REQUESTS);
const cpu0 = process.cpuUsage();
const w0 = performance.now();
for (let i = 0; i < requests; i++) await invoke();
const wallMs = performance.now() - w0;
const cpu = process.cpuUsage(cpu0);
writeFileSync(
  PROBE_OUT,
  JSON.stringify({
    initMs,
    initCpuMs: (initCpu.user + initCpu.system) / 1000,
    first,
    cpuUsPerRequest: (cpu.user + cpu.system) / requests,
    wallMsPerRequest: wallMs / requests,
  }),
);
process.exit(0);
