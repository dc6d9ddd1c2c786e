/**
 * Child-process entry of the overhead bench: serves one target and reports its port over IPC.
 * Each server gets its own process (its own event loop), as it would in production, so the load
 * generator and the servers do not share one thread.
 *
 *   serve-target.ts upstream
 *   serve-target.ts bare <upstreamPort>
 *   serve-target.ts switchyard <upstreamPort> [sourceRoot]
 */
import { startBareProxy } from './bare-proxy.js';
import { startInstantUpstream } from './instant-upstream.js';
import { startSwitchyardTarget } from './switchyard-target.js';

/** What the child sends its parent once it listens. */
export interface ReadyMessage {
  port: number;
}

/** The child's answer to the message `'cpu'`: CPU time it has used so far (user + system), in µs. */
export interface CpuMessage {
  cpuMicros: number;
}

async function start(kind: string | undefined, args: string[]): Promise<number> {
  const upstreamPort = Number(args[0]);
  switch (kind) {
    case 'upstream':
      return (await startInstantUpstream()).port;
    case 'bare':
      return (await startBareProxy(upstreamPort)).port;
    case 'switchyard':
      return (await startSwitchyardTarget(upstreamPort, args[1])).port;
    default:
      throw new Error(`unknown target kind '${kind}'`);
  }
}

// The parent going away (normally or not) ends this process: no server outlives the bench.
process.on('disconnect', () => process.exit(0));
process.on('message', (message) => {
  if (message !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  process.send?.({ cpuMicros: user + system } satisfies CpuMessage);
});
const [kind, ...args] = process.argv.slice(2);
start(kind, args).then(
  (port) => process.send?.({ port } satisfies ReadyMessage),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
