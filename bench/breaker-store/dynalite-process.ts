import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';

/** dynalite in its own process, so its CPU time does not land on the router's event loop. */
export interface DynaliteProcess {
  endpoint: string;
  stop(): void;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Starts `dynalite --port N --host 127.0.0.1` (in memory) and resolves once it listens. */
export async function startDynaliteProcess(): Promise<DynaliteProcess> {
  const port = await freePort();
  const cli = createRequire(import.meta.url).resolve('dynalite/cli.js');
  const child = spawn(
    process.execPath,
    [cli, '--port', String(port), '--host', '127.0.0.1', '--createTableMs', '0'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`dynalite exited with ${code}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
  });
  return { endpoint: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}
