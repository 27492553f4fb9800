/** Slots of the shared Int32Array between fsync-thread.ts and fsync-worker.ts. */
export const REQUESTED = 0;
export const COMPLETED = 1;
export const ERRNO = 2;
/** Set to 1 to stop the worker. */
export const STOP = 3;
export const CONTROL_SLOTS = 4;

/** The generation after `generation`: positive int32s, wrapping, so a long-lived store never overflows. */
export function nextGeneration(generation: number): number {
  return generation >= 0x7fffffff ? 1 : generation + 1;
}
