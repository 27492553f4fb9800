import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { pipeCli, runCliWithInput } from '../helpers/cli-pipe.js';
import { CLI, runCli } from '../helpers/process.js';
import { authorizedFetch, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

async function userEnv(server: TestServer): Promise<Record<string, string>> {
  const user = await server.user();
  return { PLANTSTORE_URL: server.url, PLANTSTORE_TOKEN: user.token };
}

function file(t: TestContext, name: string, text: string): string {
  const path = join(tempDir(t), name);
  writeFileSync(path, text);
  return path;
}

const CSV = [
  'id,name,tag',
  '9007199254740993,Monstera,aroid',
  '-9223372036854775808,"Dragon tree, ""Dracaena""",',
  '9223372036854775807,Fern,fern',
  '',
].join('\n');

describe('plantstore plants import', () => {
  test('a CSV file, then list shows the ids', async (t) => {
    const server = await startTestServer(t);
    const env = await userEnv(server);
    const imported = await runCli(['plants', 'import', file(t, 'plants.csv', CSV)], env);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stdout, 'imported: 3 created, 0 unchanged, 0 conflicts, 0 refused lines\n');
    assert.equal(imported.stderr, '', 'no progress line when stderr is not a terminal');
    const listed = await runCli(['plants', 'list'], env);
    assert.equal(
      listed.stdout,
      [
        '                  ID  NAME                     TAG',
        '-9223372036854775808  Dragon tree, "Dracaena"',
        '    9007199254740993  Monstera                 aroid',
        ' 9223372036854775807  Fern                     fern',
        '',
      ].join('\n'),
    );
  });

  test('the summary counts created, unchanged and conflicts and lists refused lines by number; exit 1', async (t) => {
    const server = await startTestServer(t);
    const env = await userEnv(server);
    assert.equal((await runCli(['plants', 'add', '2', 'Two'], env)).code, 0);
    const input = [
      'name,id,tag', // any column order
      'One,1,',
      'Two,2,', // already there, identical
      'Other,3,a',
      'not an id,x,',
      '"   ",4,', // the service refuses it
      'Three,3,b', // same id as line 4, another tag
      'too,5,many,fields',
      'broken "quote",6,',
      'One,1,',
    ].join('\r\n');
    const result = await runCliWithInput(['plants', 'import', '-'], env, input);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(
      result.stdout,
      [
        'imported: 2 created, 2 unchanged, 1 conflict, 4 refused lines',
        'line 5: refused: "id" must be a signed 64-bit integer in decimal digits.',
        'line 6: refused: "name" must not be only whitespace.',
        'line 7: conflict: plant 3 exists with a different name or tag',
        'line 8: refused: has 4 fields; the header has 3.',
        'line 9: refused: not CSV: a quote inside an unquoted field (quote the whole field and double the quote).',
        '',
      ].join('\n'),
    );
    assert.equal(result.stderr, '');
  });

  test('past 1000 problems the summary lists the first 1000 by line and counts the rest', async (t) => {
    const server = await startTestServer(t);
    const env = await userEnv(server);
    const bad = (count: number) => ['id,name,tag', ...Array.from({ length: count }, (_, i) => `x${i},n,`)].join('\n');
    const listed = await runCliWithInput(['plants', 'import', '-'], env, bad(1000));
    assert.equal(listed.code, 1);
    const lines = listed.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 1001, 'the counts, then all 1000 problems');
    assert.equal(lines[0], 'imported: 0 created, 0 unchanged, 0 conflicts, 1000 refused lines');
    assert.match(lines[1000] ?? '', /^line 1001: refused: /);
    const capped = await runCliWithInput(['plants', 'import', '-'], env, bad(1003));
    assert.equal(capped.code, 1);
    const cappedLines = capped.stdout.trimEnd().split('\n');
    assert.equal(cappedLines.length, 1002);
    assert.match(cappedLines[1000] ?? '', /^line 1001: refused: /);
    assert.equal(cappedLines[1001], '… and 3 more');
  });

  test('a conflict alone is enough for exit 1', async (t) => {
    const server = await startTestServer(t);
    const env = await userEnv(server);
    assert.equal((await runCliWithInput(['plants', 'import', '-'], env, 'id,name\n1,a\n')).code, 0);
    const result = await runCliWithInput(['plants', 'import', '-'], env, 'id,name\n1,b\n');
    assert.equal(result.stdout, 'imported: 0 created, 0 unchanged, 1 conflict, 0 refused lines\nline 2: conflict: plant 1 exists with a different name or tag\n');
    assert.equal(result.code, 1);
  });

  test('a re-run changes nothing and says so; more plants than one batch', async (t) => {
    const server = await startTestServer(t);
    const env = await userEnv(server);
    let jsonl = '';
    for (let i = 0; i < 1234; i++) jsonl += `{"id":${9007199254740993n + BigInt(i * 7)},"name":"plant ${i}"${i % 3 === 0 ? ',"tag":"third"' : ''}}\n`;
    const path = file(t, 'plants.jsonl', jsonl);
    const first = await runCli(['plants', 'import', path], env);
    assert.equal(first.stdout, 'imported: 1234 created, 0 unchanged, 0 conflicts, 0 refused lines\n');
    assert.equal(first.code, 0);
    const again = await runCli(['plants', 'import', path], env);
    assert.equal(again.stdout, 'imported: 0 created, 1234 unchanged, 0 conflicts, 0 refused lines\n');
    assert.equal(again.code, 0);
    const exported = await runCli(['plants', 'export'], env);
    assert.equal(exported.stdout, jsonl);
  });

  test('JSON Lines from stdin: refused lines name their reason; ids are read exactly', async (t) => {
    const server = await startTestServer(t);
    const env = await userEnv(server);
    const input = ['{"id":9007199254740993,"name":"a","extra":true}', '{"id":1.0,"name":"b"}', '', '{"id":2,"name":"c","tag":null}', '{"id":3}', 'nope', '{"id":9223372036854775808,"name":"d"}'].join('\n');
    const result = await runCliWithInput(['plants', 'import', '-'], env, input);
    assert.equal(result.code, 1);
    assert.equal(
      result.stdout,
      [
        'imported: 1 created, 0 unchanged, 0 conflicts, 5 refused lines',
        'line 2: refused: "id" must be an integer written without fraction or exponent.',
        'line 4: refused: "tag" must be a string (leave it out for no tag).',
        'line 5: refused: "name" must be a string.',
        'line 6: refused: not JSON: unexpected character at position 0.',
        'line 7: refused: "id" must fit in a signed 64-bit integer.',
        '',
      ].join('\n'),
    );
    assert.equal((await runCli(['plants', 'get', '9007199254740993', '--json'], env)).stdout, '{"id":9007199254740993,"name":"a"}\n');
  });

  test('a token the service refuses stops the import with one line and exit 1', async (t) => {
    const server = await startTestServer(t);
    const result = await runCli(['plants', 'import', file(t, 'p.csv', CSV), '--url', server.url, '--token', 'pst_unknown']);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, 'imported: 0 created, 0 unchanged, 0 conflicts, 0 refused lines\n');
    assert.match(result.stderr, /^plantstore: the import stopped at line 2 \(a re-run is safe\): .*\(HTTP 401\)\n$/);
  });

  test('a CSV header other than id,name,tag, and input that is not UTF-8, exit 2', async (t) => {
    const server = await startTestServer(t);
    const env = await userEnv(server);
    const header = await runCliWithInput(['plants', 'import', '-'], env, 'id,title\n1,x\n');
    assert.equal(header.code, 2);
    assert.match(header.stderr, /^plantstore: the CSV header must be id,name,tag \(tag optional, any order\), not id,title\n$/);
    const binary = await runCliWithInput(['plants', 'import', '-', '--format', 'csv'], env, Buffer.from([0x69, 0x64, 0x2c, 0xff, 0x0a]));
    assert.equal(binary.code, 2);
    assert.equal(binary.stderr, 'plantstore: line 1 is not valid UTF-8\n');
  });
});

describe('plantstore plants import: input that turns bad after lines were imported', () => {
  test('the lines before are imported, and the summary says where it stopped; exit 2', async (t) => {
    const server = await startTestServer(t);
    const env = await userEnv(server);
    // Not a whole number of batches: the last one is sent after the input failed.
    const rows = Array.from({ length: 4001 }, (_, i) => `${i + 1},plant number ${i + 1} with a longish name,green`);
    const input = Buffer.concat([Buffer.from(`id,name,tag\n${rows.join('\n')}\n`), Buffer.from([0xff, 0x0a])]);
    const result = await runCliWithInput(['plants', 'import', '-', '--format', 'csv'], env, input);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, 'imported: 4001 created, 0 unchanged, 0 conflicts, 0 refused lines\n', 'every line before the bad one');
    assert.equal(result.stderr, 'plantstore: the import stopped at line 4003 (a re-run is safe): it is not valid UTF-8\n');
    const listed = (await (await authorizedFetch(`${server.url}/plants?fields=id`, env.PLANTSTORE_TOKEN as string)).json()) as unknown[];
    assert.equal(listed.length, 4001, 'every plant the summary counts is stored, and no other');
  });
});

describe('plantstore plants export | plantstore plants import -', () => {
  for (const format of ['jsonl', 'csv']) {
    test(`into another user round-trips exactly (${format}, ids beyond 2^53, quotes and commas)`, async (t) => {
      const server = await startTestServer(t);
      const alice = await userEnv(server);
      const bob = await userEnv(server);
      const seeded = await runCli(['plants', 'import', file(t, 'seed.csv', `${CSV}5,"a ""quoted"", name",tag with space\n-1,x,\n`)], alice);
      assert.equal(seeded.code, 0, seeded.stderr);

      const [exported, imported] = await pipeCli({ args: ['plants', 'export', '--format', format], env: alice }, { args: ['plants', 'import', '-'], env: bob });
      assert.equal(exported.code, 0, exported.stderr);
      assert.equal(imported.code, 0, imported.stderr);
      assert.equal(imported.stdout, 'imported: 5 created, 0 unchanged, 0 conflicts, 0 refused lines\n');

      const aliceJson = await runCli(['plants', 'export'], alice);
      const bobJson = await runCli(['plants', 'export'], bob);
      assert.equal(bobJson.stdout, aliceJson.stdout);
      assert.match(bobJson.stdout, /^\{"id":-9223372036854775808,"name":"Dragon tree, \\"Dracaena\\""\}\n/);
      assert.match(bobJson.stdout, /\{"id":9007199254740993,"name":"Monstera","tag":"aroid"\}\n/);
      assert.match(bobJson.stdout, /\{"id":9223372036854775807,"name":"Fern","tag":"fern"\}\n$/);
    });
  }

  test('export --format csv writes the header and quotes what needs quoting', async (t) => {
    const server = await startTestServer(t);
    const env = await userEnv(server);
    await runCli(['plants', 'import', file(t, 'seed.csv', CSV)], env);
    const exported = await runCli(['plants', 'export', '--format', 'csv'], env);
    assert.equal(exported.stdout, 'id,name,tag\n-9223372036854775808,"Dragon tree, ""Dracaena""",\n9007199254740993,Monstera,aroid\n9223372036854775807,Fern,fern\n');
  });
});

test('plants export into a reader that stops early (| head) ends quietly with exit 0', async (t) => {
  const server = await startTestServer(t);
  const env = await userEnv(server);
  let jsonl = '';
  for (let i = 0; i < 3000; i++) jsonl += `{"id":${i},"name":"${'x'.repeat(100)}"}\n`;
  assert.equal((await runCli(['plants', 'import', file(t, 'many.jsonl', jsonl)], env)).code, 0);
  const child = spawn(process.execPath, [CLI, 'plants', 'export', '--format', 'csv'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [first] = (await once(child.stdout, 'data')) as [Buffer];
  assert.match(first.toString(), /^id,name,tag\n/);
  child.stdout.destroy();
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(stderr, '');
  assert.equal(code, 0);
});

test('an import with refused lines whose summary meets a reader that is gone still exits 1', async (t) => {
  const server = await startTestServer(t);
  const env = await userEnv(server);
  const child = spawn(process.execPath, [CLI, 'plants', 'import', file(t, 'bad.csv', 'id,name,tag\nnot an id,x,\n')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.destroy(); // the summary's write meets EPIPE
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(stderr, '');
  assert.equal(code, 1);
});

test('on a terminal, import shows a progress line on stderr and clears it before the summary', async (t) => {
  if (!existsSync('/usr/bin/script')) {
    t.skip('util-linux script(1), which gives the command a terminal, is not installed');
    return;
  }
  const server = await startTestServer(t);
  const env = await userEnv(server);
  const path = file(t, 'plants.csv', CSV);
  const command = [process.execPath, CLI, 'plants', 'import', path].map((word) => `'${word}'`).join(' ');
  const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 0, screen);
  assert.match(screen, /\r\x1b\[2Kimporting: [0-9]+ created, 0 unchanged, 0 conflicts, 0 refused lines/);
  assert.match(screen, /\r\x1b\[2Kimported: 3 created, 0 unchanged, 0 conflicts, 0 refused lines\r?\n$/);
});
