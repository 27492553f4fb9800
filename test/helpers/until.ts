import assert from 'node:assert/strict';

/** Waits until `condition` holds, checking every `everyMs`; fails naming `what` after `withinMs`. */
export async function until(condition: () => boolean, what: string, withinMs = 15_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
