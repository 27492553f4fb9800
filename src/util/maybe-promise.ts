/**
 * A value now, or a promise of it. The SQLite store answers reads at once (better-sqlite3 is
 * synchronous) and PostgreSQL with promises; callers wait only when they got a promise.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Calls `next` with the value: at once when it is there, after the promise otherwise. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Runs `work`; a failure, thrown or rejected, goes to `recover`. A promise only when `work` gave one. */
export function orElse<T>(work: () => MaybePromise<T>, recover: (error: unknown) => MaybePromise<T>): MaybePromise<T> {
  let result: MaybePromise<T>;
  try {
    result = work();
  } catch (error) {
    return recover(error);
  }
  return result instanceof Promise ? result.catch(recover) : result;
}
