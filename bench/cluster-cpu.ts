/**
 * The CPU time a throwaway PostgreSQL cluster (test/support/postgres-cluster.ts) has used, from /proc: the
 * postmaster's own, its live children's (backends, WAL writer, checkpointer, …) and the children it has reaped.
 * Read before and after a load run, the difference divided by the check-ins is the database CPU per check-in
 * (docs/benchmarks.md "PostgreSQL (bench:issuer --store postgres)"). Linux only; elsewhere it reports nothing.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return ticksPerSecond;
}

/** /proc/PID/stat's fields after the command (which may hold spaces), from field 3 (state) on. */
function statFields(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone between the listing and the read
  }
}

/** CPU seconds of the cluster in `clusterDir` (its `data/postmaster.pid`) so far; undefined where /proc is not. */
export function clusterCpuSeconds(clusterDir: string): number | undefined {
  let postmaster: string;
  try {
    postmaster = readFileSync(join(clusterDir, 'data', 'postmaster.pid'), 'utf8')
      .split('\n')[0]!
      .trim();
    readdirSync('/proc');
  } catch {
    return undefined;
  }
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const fields = statFields(pid);
    if (fields === undefined) continue;
    // fields[1] is ppid (stat field 4); utime, stime, cutime, cstime are stat fields 14–17.
    const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]));
    if (pid === postmaster) ticks += utime! + stime! + cutime! + cstime!;
    else if (fields[1] === postmaster) ticks += utime! + stime!;
  }
  return ticks / clockTicks();
}
