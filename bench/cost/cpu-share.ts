/**
 * How the benchmark gives a process the CPU a Lambda of M MB gets: Lambda allots CPU in proportion
 * to memory (1,769 MB = one vCPU), enforced like a CFS bandwidth quota, so the probe runs in a
 * cgroup whose quota is M / 1769 of one CPU per 100 ms period: cgroups v2 `cpu.max`, else the v1
 * `cpu` controller's `cpu.cfs_quota_us` (the same scheduler mechanism). Needs write access to the
 * cgroup tree (root in a container); without it the probe runs unlimited and says so.
 */
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Lambda's memory for one full vCPU, in MB. */
export const MB_PER_VCPU = 1769;
const PERIOD_US = 100_000;

/** A cgroup the probe can join, or none. */
export interface CpuShare {
  /** `cgroups v2 cpu.max`, `cgroups v1 cfs_quota_us`, or `none (not writable)`. */
  how: string;
  /** The file a process writes its pid to, to join; undefined when unlimited. */
  procsFile: string | undefined;
  remove(): void;
}

/** A cgroup limited to the CPU of a Lambda with `memoryMb` (no limit when `memoryMb` is undefined). */
export function cpuShareFor(memoryMb: number | undefined): CpuShare {
  const none = (how: string): CpuShare => ({ how, procsFile: undefined, remove: () => {} });
  if (memoryMb === undefined) return none('none (whole machine)');
  const quota = Math.max(1000, Math.round((PERIOD_US * memoryMb) / MB_PER_VCPU));
  const name = `switchyard-bench-${memoryMb}-${process.pid}`;
  const attempts: [string, (dir: string) => void, string][] = [
    [
      '/sys/fs/cgroup/cgroup.controllers',
      (dir) => writeFileSync(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`),
      'cgroups v2 cpu.max',
    ],
    [
      '/sys/fs/cgroup/cpu/cpu.cfs_quota_us',
      (dir) => {
        writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
        writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
      },
      'cgroups v1 cpu.cfs_quota_us',
    ],
  ];
  for (const [marker, limit, how] of attempts) {
    if (!existsSync(marker)) continue;
    const dir = join(marker.replace(/\/[^/]+$/, ''), name);
    try {
      mkdirSync(dir);
      limit(dir);
      return { how, procsFile: join(dir, 'cgroup.procs'), remove: () => tryRemove(dir) };
    } catch {
      tryRemove(dir);
    }
  }
  return none('none (cgroups not writable)');
}

function tryRemove(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Still has a process, or never existed: nothing to clean.
  }
}
