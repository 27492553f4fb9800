/**
 * Running a command as an unprivileged user, for what root would not show: a folder it may not
 * write, or a deployment that must not need root.
 */
import { execFileSync } from 'node:child_process';

/** The uid and gid of "nobody", which setpriv switches to. */
export const NOBODY = 65534;

export type Unprivileged = { wrapper: string[]; uid: number | undefined; reason?: undefined } | { reason: string };

/** The command prefix that drops root, none when not root, or why neither can be done. */
export function unprivileged(): Unprivileged {
  if (process.getuid?.() !== 0) return { wrapper: [], uid: process.getuid?.() };
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
  } catch {
    return { reason: 'running as root without setpriv' };
  }
  return { wrapper: ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'], uid: NOBODY };
}
