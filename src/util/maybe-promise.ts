/**
 * A value now, or a promise of it. The SQLite store answers reads at once (better-sqlite3 is
 * synchronous) and PostgreSQL with promises; callers wait only when they got a promise.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Calls `next` with the value: at once when it is there, after the promise otherwise. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
