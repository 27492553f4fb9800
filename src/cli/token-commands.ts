/** `plantstore token create|list|revoke`: API tokens, made and managed on the database itself. */
import { Command } from 'commander';
import { expiryAfter, isTokenId, isUsable, issueToken } from '../auth/api-tokens.js';
import { UserNameError, normalizeUserName, shownUserName } from '../auth/user-name.js';
import { parseDuration } from '../util/duration.js';
import { DATABASE_SETTINGS, fail, settingOptions, withStore } from './command-settings.js';
import { UsageError, refusePastedToken } from './usage.js';

function iso(date: Date | null): string {
  return date === null ? '-' : date.toISOString();
}

export function tokenCommand(): Command {
  const token = new Command('token').description('manage API tokens (create, list, revoke)');

  settingOptions(
    token
      .command('create')
      .description('create an API token and print it, and nothing else, on stdout')
      // Checked in the action, not by commander, which would report it missing before a misspelt flag.
      .option('--user <name>', 'the user the token acts for; all tokens of one user share its plants (required)')
      .option('--read-only', 'grant only plants:read (default: plants:read and plants:write)')
      .option('--expires-in <duration>', 'lifetime such as 90s, 30m, 12h or 30d (default: never expires)'),
    DATABASE_SETTINGS,
  ).action(async (options: { user?: string; readOnly?: boolean; expiresIn?: string }, command: Command) => {
    if (options.user === undefined) command.error("required option '--user <name>' not specified");
    refusePastedToken(options.user, 'not a user name: --user takes the name of the user the token acts for');
    const expiresInMs = options.expiresIn === undefined ? undefined : parseDuration(options.expiresIn);
    if (options.expiresIn !== undefined && expiresInMs === undefined) {
      throw new UsageError('--expires-in must look like 90s, 30m, 12h or 30d');
    }
    if (expiresInMs !== undefined && expiryAfter(new Date(), expiresInMs) === undefined) {
      throw new UsageError(`--expires-in ${options.expiresIn} ends after the year 9999; give a shorter lifetime, or none for a token that never expires`);
    }
    let user: string;
    try {
      user = normalizeUserName(options.user);
    } catch (error) {
      if (!(error instanceof UserNameError)) throw error;
      throw new UsageError(`--user ${JSON.stringify(options.user)} is refused: ${error.message}`);
    }
    const issued = await withStore(command, (store) => issueToken(store, { user, readOnly: options.readOnly === true, expiresInMs }), true);
    process.stdout.write(`${issued?.token}\n`);
  });

  settingOptions(
    token
      .command('list')
      .description('list tokens: id, user, scopes, created, expires, last used, revoked (never the token)')
      .option('--active', 'only the tokens still accepted: neither revoked nor expired')
      .option('--json', 'print a JSON array'),
    DATABASE_SETTINGS,
  ).action(async (options: { active?: boolean; json?: boolean }, command: Command) => {
    const stored = await withStore(command, (store) => store.listTokens());
    const now = Date.now();
    const tokens = options.active === true ? stored.filter((t) => isUsable(t, now)) : stored;
    if (options.json === true) {
      process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
      return;
    }
    const rows = [['ID', 'USER', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED']];
    for (const t of tokens) {
      rows.push([t.id, shownUserName(t.user), t.scopes.join(' '), iso(t.createdAt), iso(t.expiresAt), iso(t.lastUsedAt), iso(t.revokedAt)]);
    }
    const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
    for (const row of rows) process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()}\n`);
  });

  settingOptions(token.command('revoke').description('revoke a token by its id (from token list); effective on the next request').argument('<token-id>'), DATABASE_SETTINGS).action(
    async (id: string, _options, command: Command) => {
      refusePastedToken(id, 'not its id: revoke takes the ID that token list shows');
      if (!isTokenId(id)) throw new UsageError('that is not a token id (tok_ and 12 hex digits): revoke takes the ID that token list shows');
      const revoked = await withStore(command, (store) => store.revokeToken(id, new Date()));
      if (!revoked) fail(`no token has the id ${id}, or it is revoked already`);
      process.stdout.write(`revoked ${id}\n`);
    },
  );

  return token;
}
