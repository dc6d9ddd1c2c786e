import { Hono } from 'hono';
import { request } from 'node:http';
import { startServer } from '/work/main/lambda/wiring/start-server.ts';
const enc = new TextEncoder();
const app = new Hono();
const chunked = process.argv[2] === 'chunked';
app.get('/s', () => new Response(new ReadableStream({ start(c) { c.enqueue(enc.encode('data: a\n\n')); }, async pull(c) { await new Promise(r => setTimeout(r, 20)); c.enqueue(enc.encode('data: b\n\n')); c.close(); } }), { headers: { 'content-type': 'text/event-stream', ...(chunked ? { 'transfer-encoding': 'chunked' } : {}) } }));
const s = await startServer(app, { port: 0, host: '127.0.0.1' });
const times: number[] = [];
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  await new Promise<void>((done) => request({ port: s.port, host: '127.0.0.1', path: '/s' }, (res) => { res.once('data', () => { times.push(performance.now() - t); }); res.on('end', done); res.resume(); }).end());
}
times.sort((a, b) => a - b);
console.log(chunked ? 'chunked' : 'default', 'median TTFB ms', times[25].toFixed(3));
await s.close();
