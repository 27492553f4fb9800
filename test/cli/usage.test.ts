/**
 * The command as a user meets it: --version, and every mistake in a command line answered by
 * one line with a hint and exit status 2, never the whole help text or a stack trace.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCli, type CliResult } from '../helpers/process.js';
import { tempDir } from '../helpers/server.js';

const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

function usageLine(result: CliResult): string {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /Usage:|\n\s+at /);
  return lines[0] ?? '';
}

describe('plantstore --version', () => {
  for (const flag of ['--version', '-V']) {
    test(`${flag} prints the package version and exits 0`, async () => {
      const result = await runCli([flag]);
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `${version}\n`);
    });
  }
});

describe('a command line plantstore cannot run', () => {
  const cases: [string, string[], RegExp][] = [
    ['an unknown command', ['bogus'], /^plantstore: unknown command 'bogus'; see plantstore --help$/],
    ['a misspelt command', ['serv'], /^plantstore: unknown command 'serv' \(Did you mean serve\?\); see plantstore --help$/],
    ['an unknown flag of the default command', ['--bogus'], /^plantstore: unknown option '--bogus'; see plantstore serve --help$/],
    ['a misspelt flag', ['serve', '--prot', '1'], /^plantstore: unknown option '--prot' \(Did you mean --port\?\); see plantstore serve --help$/],
    ['an unknown flag of a subcommand', ['token', 'list', '--yaml'], /^plantstore: unknown option '--yaml'; see plantstore token list --help$/],
    ['a missing required flag', ['token', 'create'], /^plantstore: required option '--user <name>' not specified; see plantstore token create --help$/],
    ['a misspelt required flag', ['token', 'create', '--usr', 'alice'], /^plantstore: unknown option '--usr' \(Did you mean --user\?\); see plantstore token create --help$/],
    ['a missing argument', ['token', 'revoke'], /^plantstore: missing required argument 'token-id'; see plantstore token revoke --help$/],
    ['an extra argument', ['migrate', 'now'], /^plantstore: too many arguments for 'migrate'\. Expected 0 arguments but got 1\.; see plantstore migrate --help$/],
    ['a missing backup file', ['backup'], /^plantstore: missing required argument 'file'; see plantstore backup --help$/],
    ['help for an unknown command', ['help', 'tokn'], /^plantstore: a command is missing or unknown; see plantstore --help$/],
    ['a command group without its command', ['token'], /^plantstore: a command is missing or unknown; see plantstore token --help$/],
    ['the plants group without its command', ['plants'], /^plantstore: a command is missing or unknown; see plantstore plants --help$/],
  ];
  for (const [name, args, expected] of cases) {
    test(`${name} (plantstore ${args.join(' ')}): one line with a hint, exit 2`, async () => {
      assert.match(usageLine(await runCli(args)), expected);
    });
  }

  test('a misspelt flag written --name=value: the value, which may be a secret, is not shown', async () => {
    const result = await runCli(['token', 'create', '--user', 'a', '--databse-url=postgres://app:hunter2@db/plants']);
    assert.match(usageLine(result), /^plantstore: unknown option '--databse-url=…'; see plantstore token create --help$/);
    assert.doesNotMatch(result.stderr, /hunter2/);
  });

  test('an unknown command that is no word (a token, a URL pasted in its place) is not shown', async () => {
    const token = `pst_${'A'.repeat(43)}`;
    for (const args of [['token', token], ['DATABASE_URL=postgres://app:hunter2@db/plants', 'token', 'list']]) {
      const result = await runCli(args);
      assert.match(usageLine(result), /^plantstore: unknown command '…'; see plantstore (token )?--help$/);
      assert.doesNotMatch(result.stderr, /hunter2|AAAA/);
    }
  });

  test('help for a known command still prints its help on stdout, exit 0', async () => {
    const result = await runCli(['help', 'token']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Usage: plantstore token /);
  });

  test('a bad --expires-in value: one line, exit 2', async (t) => {
    const result = await runCli(['token', 'create', '--user', 'a', '--expires-in', '2w', '--database-url', `sqlite:${join(tempDir(t), 'u.db')}`]);
    assert.match(usageLine(result), /^plantstore: --expires-in must look like 90s, 30m, 12h or 30d$/);
  });

  test('plantstore alone with options serves: the default command is serve', async (t) => {
    const result = await runCli(['--port', 'abc'], { DATABASE_URL: `sqlite:${join(tempDir(t), 'd.db')}` });
    assert.match(usageLine(result), /^plantstore: bad setting: --port="abc"/);
  });
});

describe('CORS_ORIGINS values that are not origins', () => {
  const cases: [string, RegExp][] = [
    ['*', /CORS_ORIGINS="\*" a wildcard is not accepted: list each allowed origin, like https:\/\/app\.example\.com$/],
    ['app.example.com', /CORS_ORIGINS="app\.example\.com" is not an origin: write scheme and host, like https:\/\/app\.example\.com$/],
    ['https://app.example.com/', /CORS_ORIGINS="https:\/\/app\.example\.com\/" is not an origin: write it as https:\/\/app\.example\.com, without path/],
    ['https://ok.example,https://app.example.com/x', /,https:\/\/app\.example\.com\/x" lists "https:\/\/app\.example\.com\/x", which is not an origin: write it as https:\/\/app\.example\.com,/],
    ['ftp://files.example', /CORS_ORIGINS="ftp:\/\/files\.example" is not an origin: it must start with https:\/\/ or http:\/\/$/],
  ];
  for (const [value, expected] of cases) {
    test(`CORS_ORIGINS=${value}: one line naming the setting and the fix`, async (t) => {
      const line = usageLine(await runCli(['serve'], { CORS_ORIGINS: value, DATABASE_URL: `sqlite:${join(tempDir(t), 'c.db')}` }));
      assert.match(line, /^plantstore: bad setting: CORS_ORIGINS=/);
      assert.match(line, expected);
    });
  }

  test('--cors-origins names the flag', async (t) => {
    const line = usageLine(await runCli(['serve', '--cors-origins', '*', '--database-url', `sqlite:${join(tempDir(t), 'f.db')}`]));
    assert.match(line, /^plantstore: bad setting: --cors-origins="\*" a wildcard is not accepted/);
  });
});
