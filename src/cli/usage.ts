/**
 * How the `plantstore` command talks about a mistake in its use: one line on stderr with a
 * hint, exit status 2, never the whole help text and never a stack trace.
 */
import type { Command } from 'commander';
import { isApiToken } from '../auth/api-tokens.js';

/** The exit status of a command line that cannot be run as typed. */
export const USAGE_EXIT_CODE = 2;

/** A mistake in the command line or its values, found after commander parsed it. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A misspelt `--name=value` comes back whole in commander's message, and its value may be a secret. */
const OPTION_VALUE = /('-{1,2}[^'=\s]+=)[^']*'/g;
/** So may an unknown command: a token or a URL pasted in the wrong place. Only a word is shown. */
const UNKNOWN_COMMAND = /(unknown command ')([^']*)'/;
const COMMAND_WORD = /^[a-z][a-z0-9-]{0,31}$/i;

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/**
 * Makes every command in the tree report its usage errors as one line, ending in the help
 * command that explains it, and throw instead of exiting (the caller picks the status).
 */
export function configureUsageErrors(command: Command): void {
  const hint = `${commandPath(command)} --help`;
  command.exitOverride();
  command.configureOutput({
    outputError: (text) => {
      const line = text
        .replace(/^error: /, '')
        .replace(/\s*\n\s*/g, ' ')
        .replace(OPTION_VALUE, "$1…'")
        .replace(UNKNOWN_COMMAND, (whole, start: string, name: string) => (COMMAND_WORD.test(name) ? whole : `${start}…'`))
        .trim();
      process.stderr.write(`plantstore: ${line}; see ${hint}\n`);
    },
    // commander writes the whole help here, as an error, when a command is missing or unknown
    // (`plantstore token`, `plantstore help tokn`): one line instead.
    writeErr: () => process.stderr.write(`plantstore: a command is missing or unknown; see ${hint}\n`),
  });
  for (const sub of command.commands) configureUsageErrors(sub);
}

/** `plantstore` alone, or followed by options, means `plantstore serve …`. */
export function withDefaultCommand(args: readonly string[]): string[] {
  const [first] = args;
  if (first === undefined) return ['serve'];
  const ownOptions = ['-h', '--help', '-V', '--version'];
  return first.startsWith('-') && !ownOptions.includes(first) ? ['serve', ...args] : [...args];
}

const JWT_SHAPE = /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/;

/**
 * Refuses a plantstore token or a JWT pasted where a name belongs, without echoing it (stderr
 * may go to a log): taken as a user name it would be stored, listed and backed up in clear.
 */
export function refusePastedToken(value: string, instead: string): void {
  if (isApiToken(value) || JWT_SHAPE.test(value)) throw new UsageError(`that is a token, ${instead}`);
}
