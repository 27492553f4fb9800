/** How a command's failure becomes one line on stderr and an exit code. */
import { PlantStoreError, PlantStoreResponseError } from '../client/index.js';
import { maskedUrl } from '../util/masked-url.js';
import { USAGE_EXIT_CODE, UsageError } from './usage.js';

/** The service refused something, or could not be reached. */
export const EXIT_REFUSED = 1;

/**
 * The first line of `text`, without control characters: a message from elsewhere (a proxy's
 * error body) must not add lines to stderr nor drive the terminal with escape sequences.
 */
function printable(text: string): string {
  return (text.split(/\r?\n|\r/, 1)[0] ?? '').replace(/\p{Cc}/gu, '\uFFFD');
}

/** The one line to print, and the exit code, for anything a command throws; never a stack trace. */
export function describeFailure(error: unknown, url: string): { line: string; exitCode: number } {
  if (error instanceof UsageError) return { line: error.message, exitCode: USAGE_EXIT_CODE };
  if (error instanceof PlantStoreError) return { line: `${printable(error.message)} (HTTP ${error.status})`, exitCode: EXIT_REFUSED };
  if (error instanceof PlantStoreResponseError) return { line: error.message, exitCode: EXIT_REFUSED };
  // fetch fails with a TypeError whose cause names the network error (ECONNREFUSED, ENOTFOUND, …).
  if (error instanceof TypeError && error.cause instanceof Error) {
    const cause = error.cause as Error & { code?: unknown };
    return { line: `cannot reach ${maskedUrl(url) ?? 'the server --url names'}: ${typeof cause.code === 'string' ? cause.code : cause.message}`, exitCode: EXIT_REFUSED };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { line: printable(message), exitCode: EXIT_REFUSED };
}

/**
 * Ends the command when stdout fails. A reader that stopped reading (`token list | head -1`)
 * ends it quietly, as SIGPIPE would, with the exit code the command has set so far; any other
 * failure is one line and exit 1.
 */
export function stdoutFailed(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  process.stderr.write(`plantstore: cannot write the output: ${error.code ?? error.message}\n`);
  process.exit(EXIT_REFUSED);
}
