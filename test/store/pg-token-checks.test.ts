/** TokenChecks on a real PostgreSQL: the checks of one turn are one statement, each answered for its own token. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type pg from 'pg';
import { digestToken, issueToken } from '../../src/auth/api-tokens.js';
import { createPool } from '../../src/store/postgres/pool.js';
import { TokenChecks } from '../../src/store/postgres/token-checks.js';
import { EndOfTurn } from '../../src/util/end-of-turn.js';
import { postgresUrlOrSkipReason } from '../helpers/server.js';
import { storeFactories } from './store-factories.js';

const postgres = postgresUrlOrSkipReason();
const factory = storeFactories().find((candidate) => candidate.kind === 'postgres');

describe('token checks on postgres', { skip: postgres.reason }, () => {
  test('the checks of one turn go as one statement: valid, revoked and unknown tokens each get their answer', async (t) => {
    assert.ok(factory !== undefined);
    const url = await factory.freshUrl(t);
    const store = await factory.open(t, { url });
    const valid = await issueToken(store, { user: 'ana' });
    const revoked = await issueToken(store, { user: 'bob' });
    assert.ok(valid !== undefined && revoked !== undefined);
    assert.equal(await store.revokeToken(revoked.record.id, new Date()), true);

    const real = createPool({ url, size: 2 });
    t.after(() => real.end());
    let statements = 0;
    const pool = {
      query: (statement: pg.QueryConfig) => {
        statements++;
        return real.query(statement);
      },
    } as unknown as pg.Pool;
    const endOfTurn = new EndOfTurn();
    const checks = new TokenChecks(pool, endOfTurn.schedule);
    endOfTurn.set('sendQueries', () => checks.send());
    const tokens = [valid.token, revoked.token, `pst_${'A'.repeat(43)}`, valid.token];
    const answers = await Promise.all(tokens.map((token) => checks.isValid(digestToken(token))));
    assert.deepEqual(answers, [true, false, false, true]);
    assert.equal(statements, 1);

    assert.equal(await checks.isValid(digestToken(revoked.token)), false, 'a lone check in a later turn');
    assert.equal(statements, 2);
  });
});
