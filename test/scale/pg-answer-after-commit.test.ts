/**
 * On PostgreSQL a create is answered only once the database has answered its insert (which,
 * outside a transaction, it does after the commit is flushed): with the database's replies held
 * back between the token check and the insert, no 200 comes until they flow again.
 */
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import { openStore } from '../../src/store/open-store.js';
import { postgresUrlOrSkipReason, startTestServer } from '../helpers/server.js';
import { databaseAddress, startTcpProxy, throughProxy } from './tcp-proxy.js';

const postgres = postgresUrlOrSkipReason();

describe('a create on postgres', { skip: postgres.reason }, () => {
  test('is answered only after the database answered its insert', async (t) => {
    const databaseUrl = postgres.url as string;
    const proxy = await startTcpProxy(t, databaseAddress(databaseUrl));
    const server = await startTestServer(t, 'postgres', { databaseUrl: throughProxy(databaseUrl, proxy) });
    const user = await server.user();
    assert.equal((await user.request('/plants?limit=1')).status, 200); // the token is known from now on

    const body = JSON.stringify({ id: 7, name: 'Fern' });
    let answered = false;
    const response = new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${server.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      });
      // 100 Continue: the token is checked and the body is about to be read. From here on the
      // database hears the insert but its reply is held.
      req.on('continue', () => {
        proxy.setMode('blackhole');
        req.end(body);
      });
      req.on('response', (res) => {
        answered = true;
        resolve(res);
      });
      req.on('error', reject);
      req.flushHeaders();
    });

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(answered, false, 'a 200 came while the database had not answered');
    proxy.resume();
    const res = await response;
    res.resume();
    assert.equal(res.statusCode, 200);

    const direct = await openStore({ databaseUrl, databasePoolSize: 2 });
    t.after(() => direct.close());
    assert.deepEqual(await direct.getPlant(user.name, 7n), { id: 7n, name: 'Fern', tag: null });
  });
});
