import { availableParallelism } from 'node:os';

/**
 * A warning when a multi-process run starts more self-play processes than the machine has cores
 * (`--devices cpu:64` on 2 cores): each process loads its own game, network and runtime, and they
 * only take turns on the CPU. Null when the count fits.
 */
export function workerCountWarning(processes: number, cores: number = availableParallelism()): string | null {
  if (processes <= cores) return null;
  return (
    `${processes} self-play processes on ${cores} core${cores === 1 ? '' : 's'}: they will share the CPU (and each holds its own copy of the game, network and runtime), ` +
    `so self-play gets no faster; use at most ${cores} (e.g. --devices cpu:${cores})`
  );
}

/**
 * Self-play processes to run beside the trainer when the user chose none: the game's `selfPlayProcesses`
 * hint, where the machine has a core for each besides the trainer's; else 0 (one process, in turns).
 */
export function defaultSelfPlayProcesses(hint: number, cores: number): number {
  return hint >= 1 && cores > hint ? Math.floor(hint) : 0;
}
