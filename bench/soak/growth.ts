/**
 * The rule for "keeps growing after warm-up", the same for RSS and open file descriptors.
 * The first half of the run is warm-up (JIT, caches, SQLite's page cache, pools filling). Over
 * the second half, the minimum of the last quarter may exceed the minimum of the third quarter
 * by at most the limit. Minima, because a garbage-collected heap saws up and down: a leak lifts
 * the floor of the saw, a busy moment only its teeth. A quarter with fewer than MIN_SAMPLES
 * samples (a run shorter than about 20 s) cannot be judged, and the run is not failed on it.
 */

export interface Sample {
  /** Seconds since the load started. */
  t: number;
  value: number;
}

export const MIN_SAMPLES = 5;
export const RSS_LIMIT_MB = 4;
export const FD_LIMIT = 8;

export interface Growth {
  judged: boolean;
  /** Minimum over the third quarter of the run. */
  thirdQuarterMin: number;
  /** Minimum over the last quarter. */
  lastQuarterMin: number;
  growth: number;
  limit: number;
  ok: boolean;
}

/** Judges samples of a run of `seconds` seconds against `limit`. */
export function growthAfterWarmUp(samples: readonly Sample[], seconds: number, limit: number): Growth {
  const third = samples.filter((s) => s.t >= seconds / 2 && s.t < (seconds * 3) / 4).map((s) => s.value);
  const last = samples.filter((s) => s.t >= (seconds * 3) / 4).map((s) => s.value);
  const judged = third.length >= MIN_SAMPLES && last.length >= MIN_SAMPLES;
  const thirdQuarterMin = third.length === 0 ? NaN : Math.min(...third);
  const lastQuarterMin = last.length === 0 ? NaN : Math.min(...last);
  const growth = lastQuarterMin - thirdQuarterMin;
  return { judged, thirdQuarterMin, lastQuarterMin, growth, limit, ok: !judged || growth <= limit };
}
