import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { runCli, type CliResult } from '../helpers/process.js';
import { startTestServer } from '../helpers/server.js';

/** A server with one user; `plants(…)` runs `plantstore plants …` as that user. */
async function setup(t: TestContext) {
  const server = await startTestServer(t);
  const user = await server.user();
  const env = { PLANTSTORE_URL: server.url, PLANTSTORE_TOKEN: user.token };
  return { server, user, env, plants: (...args: string[]) => runCli(['plants', ...args], env) };
}

/** Exit 0 and nothing on stderr; returns stdout. */
function ok(result: CliResult): string {
  assert.equal(result.stderr, '');
  assert.equal(result.code, 0);
  return result.stdout;
}

/** The exit code and one line on stderr, starting with "plantstore: ", never a stack trace. */
function failed(result: CliResult, code: number, pattern: RegExp): void {
  assert.equal(result.code, code, result.stderr);
  assert.match(result.stderr, /^plantstore: [^\n]+\n$/);
  assert.match(result.stderr, pattern);
}

describe('plantstore plants add, get, list, rm', () => {
  test('add then list shows the ids in an aligned table, 64-bit ids exact', async (t) => {
    const { plants } = await setup(t);
    ok(await plants('add', '9223372036854775807', 'Dragon tree', '--tag', 'tree'));
    ok(await plants('add', '-9223372036854775808', 'Fern'));
    ok(await plants('add', '9007199254740993', 'Monstera, "big"', '--tag', 'aroid'));
    assert.equal(
      ok(await plants('list')),
      [
        '                  ID  NAME             TAG',
        '-9223372036854775808  Fern',
        '    9007199254740993  Monstera, "big"  aroid',
        ' 9223372036854775807  Dragon tree      tree',
        '',
      ].join('\n'),
    );
  });

  test('list --json prints a JSON array with exact integer ids; --limit, --after and --tag narrow it', async (t) => {
    const { plants } = await setup(t);
    for (const [id, tag] of [['9007199254740993', 'a'], ['9007199254740995', 'b'], ['9007199254740997', 'a']] as const) {
      ok(await plants('add', id, `p${id.slice(-1)}`, '--tag', tag));
    }
    assert.equal(
      ok(await plants('list', '--json')),
      '[\n  {"id":9007199254740993,"name":"p3","tag":"a"},\n  {"id":9007199254740995,"name":"p5","tag":"b"},\n  {"id":9007199254740997,"name":"p7","tag":"a"}\n]\n',
    );
    assert.equal(ok(await plants('list', '--json', '--tag', 'a', '--limit', '1')), '[\n  {"id":9007199254740993,"name":"p3","tag":"a"}\n]\n');
    assert.equal(ok(await plants('list', '--json', '--after', '9007199254740993', '--limit', '1')), '[\n  {"id":9007199254740995,"name":"p5","tag":"b"}\n]\n');
    assert.equal(ok(await plants('list', '--json', '--tag', 'none')), '[]\n');
  });

  test('get shows one plant (table or --json); an absent one exits 1 with the service’s message', async (t) => {
    const { plants } = await setup(t);
    ok(await plants('add', '-5', 'Aloe', '--tag', 'succulent'));
    assert.equal(ok(await plants('get', '-5')), 'ID  NAME  TAG\n-5  Aloe  succulent\n');
    assert.equal(ok(await plants('get', '-5', '--json')), '{"id":-5,"name":"Aloe","tag":"succulent"}\n');
    failed(await plants('get', '6'), 1, /No plant with this id exists\. \(HTTP 404\)/);
  });

  test('an identical add is safe (exit 0); a different one exits 1 with the 409', async (t) => {
    const { plants } = await setup(t);
    ok(await plants('add', '7', 'Cactus', '--json'));
    assert.equal(ok(await plants('add', '7', 'Cactus', '--json')), '{"id":7,"name":"Cactus"}\n');
    failed(await plants('add', '7', 'Other'), 1, /\(HTTP 409\)/);
    failed(await plants('add', '8', ' '), 1, /"name" must not be only whitespace\. \(HTTP 400\)/);
  });

  test('rm deletes; a second rm exits 1 with the 404', async (t) => {
    const { plants } = await setup(t);
    ok(await plants('add', '9007199254740993', 'Fern'));
    assert.equal(ok(await plants('rm', '9007199254740993')), 'deleted 9007199254740993\n');
    failed(await plants('rm', '9007199254740993'), 1, /\(HTTP 404\)/);
    assert.equal(ok(await plants('list', '--json')), '[]\n');
  });
});

describe('plantstore plants: server, token and usage', () => {
  test('--url and --token override PLANTSTORE_URL and PLANTSTORE_TOKEN', async (t) => {
    const { server, user } = await setup(t);
    const result = await runCli(['plants', 'list', '--json', '--url', server.url, '--token', user.token], { PLANTSTORE_URL: 'http://127.0.0.1:9', PLANTSTORE_TOKEN: 'pst_wrong' });
    assert.equal(ok(result), '[]\n');
  });

  test('a refused token exits 1 with one line; a read-only token cannot add', async (t) => {
    const { server, plants } = await setup(t);
    failed(await runCli(['plants', 'list', '--token', 'pst_unknown', '--url', server.url]), 1, /unknown, revoked, expired or badly signed\. \(HTTP 401\)/);
    const reader = await server.user({ readOnly: true });
    failed(await runCli(['plants', 'add', '1', 'x', '--token', reader.token, '--url', server.url]), 1, /\(HTTP 403\)/);
    ok(await plants('list'));
  });

  test('a --url that does not parse exits 2 without echoing a password in it', async () => {
    const result = await runCli(['plants', 'list', '--url', 'http://u:s3cret@127.0.0.1:99999', '--token', 'pst_x']);
    failed(result, 2, /^plantstore: The base URL is not an absolute URL/);
    assert.doesNotMatch(result.stderr, /s3cret/);
  });

  test('a server that does not answer exits 1 with one line naming it', async () => {
    failed(await runCli(['plants', 'list', '--url', 'http://127.0.0.1:1023', '--token', 'pst_x']), 1, /^plantstore: cannot reach http:\/\/127\.0\.0\.1:1023: ECONNREFUSED\n$/);
  });

  test('a --url with a user name and password exits 2 with one line, the password never shown', async () => {
    const result = await runCli(['plants', 'list', '--url', 'http://u:secretpw@127.0.0.1:1023/', '--token', 'pst_x']);
    failed(result, 2, /must not carry a user name or password/);
    assert.doesNotMatch(result.stderr, /secretpw/);
  });

  const usage: [string, string[], RegExp][] = [
    ['an id that is not an int64', ['get', '12a'], /"12a" is not a plant id/],
    ['an id beyond int64', ['rm', '9223372036854775808'], /is not a plant id/],
    ['a bad --limit', ['list', '--limit', '-1'], /--limit must be a whole number/],
    ['an unknown option', ['list', '--bogus'], /unknown option '--bogus'/],
    ['a missing argument', ['add', '1'], /missing required argument 'name'/],
    ['an unknown subcommand', ['grow'], /unknown command 'grow'/],
    ['a bad --format', ['export', '--format', 'xml'], /--format/],
    ['a file that does not exist', ['import', '/nonexistent/plants.csv'], /cannot read \/nonexistent\/plants\.csv: no such file/],
    ['a directory for a file', ['import', '/tmp'], /cannot read \/tmp: it is a directory/],
    ['--concurrency 0', ['import', '-', '--concurrency', '0'], /^plantstore: --concurrency must be a whole number from 1 to 1024\n$/],
    ['--concurrency 1025', ['import', '-', '--concurrency', '1025'], /^plantstore: --concurrency must be a whole number from 1 to 1024\n$/],
  ];
  for (const [what, args, pattern] of usage) {
    test(`bad usage exits 2 with one line: ${what}`, async () => {
      failed(await runCli(['plants', ...args], { PLANTSTORE_URL: 'http://127.0.0.1:9', PLANTSTORE_TOKEN: 'pst_x' }), 2, pattern);
    });
  }

  test('no token at all exits 2 and says how to get one', async () => {
    const env = { PLANTSTORE_URL: 'http://127.0.0.1:9', PLANTSTORE_TOKEN: '' };
    failed(await runCli(['plants', 'list'], env), 2, /no token: pass --token or set PLANTSTORE_TOKEN/);
  });

  test('--help exits 0 and lists the subcommands', async () => {
    const result = await runCli(['plants', '--help']);
    assert.equal(result.code, 0);
    for (const name of ['add', 'get', 'list', 'rm', 'export', 'import']) assert.match(result.stdout, new RegExp(`\\n  ${name} `));
  });
});
