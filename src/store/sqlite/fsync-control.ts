/** Slots of the shared Int32Array between fsync-thread.ts and fsync-worker.ts. */
export const REQUESTED = 0;
export const COMPLETED = 1;
export const ERRNO = 2;
export const CONTROL_SLOTS = 3;
