/**
 * `@az/nn/testing`: the seam this repository's fault-injection suite (apps/cli/src/fault-injection.test.ts)
 * reaches the writers of run files through. Not part of `@az/nn`'s API and not covered by its version:
 * only az's own packages import it (the checkpoint writer here, the trainer's replay and metrics writers).
 * Without the AZ_FAULT_* variables set, `faultPoint` does nothing.
 */
import { appendFileSync } from 'node:fs';

/**
 * When the environment names this step in AZ_FAULT_KILL_AT (`step` or `step#N` for its N-th occurrence
 * in this process), the process kills itself with SIGKILL right here, as a power cut would.
 * AZ_FAULT_TRACE names a file each step reached is appended to, so a test can list every step.
 */
export function faultPoint(step: string): void {
  const trace = process.env.AZ_FAULT_TRACE;
  if (trace) appendFileSync(trace, step + '\n');
  const target = process.env.AZ_FAULT_KILL_AT;
  if (!target) return;
  const [name, nth = '1'] = target.split('#');
  if (name !== step) return;
  const seen = (faultCounts.get(step) ?? 0) + 1;
  faultCounts.set(step, seen);
  if (seen === Number(nth)) process.kill(process.pid, 'SIGKILL');
}
const faultCounts = new Map<string, number>();
