/**
 * writeCreates on a real PostgreSQL when the batch's second statement (the read of plants that
 * were there before) fails: what the first statement committed must stand; and when its insert
 * fails: the creates go again alone, one at a time, until the database is found unavailable.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import { ApiError, StoreUnavailableError } from '../../src/errors.js';
import type { PendingCreate } from '../../src/store/postgres/create-batcher.js';
import { writeCreates } from '../../src/store/postgres/create-plants.js';
import { createPool } from '../../src/store/postgres/pool.js';
import { sql } from '../../src/store/postgres/statements.js';
import type { CreateResult } from '../../src/store/store.js';
import { postgresUrlOrSkipReason } from '../helpers/server.js';
import { storeFactories } from './store-factories.js';

const postgres = postgresUrlOrSkipReason();
const factory = storeFactories().find((candidate) => candidate.kind === 'postgres');

interface Statement {
  name?: string;
  text: string;
  values?: unknown[];
}

/**
 * A migrated schema holding ana's plant 1 "Fern", and a pool on it whose statements named in
 * `failures` fail with their error and those `answers` answers get its answer; `names` lists the statements sent, `mostAtOnce` how many were
 * out at once.
 */
async function poolFailing(
  t: TestContext,
  failures: Record<string, Error>,
  answers: (statement: Statement) => pg.QueryResult | undefined = () => undefined,
): Promise<{ pool: pg.Pool; names: string[]; mostAtOnce: () => number }> {
  assert.ok(factory !== undefined);
  const url = await factory.freshUrl(t);
  const store = await factory.open(t, { url });
  await store.createPlant('ana', { id: 1n, name: 'Fern', tag: null });
  const real = createPool({ url, size: 2 });
  t.after(() => real.end());
  const names: string[] = [];
  let out = 0;
  let most = 0;
  const pool = {
    query: async (statement: Statement) => {
      names.push(statement.name ?? statement.text);
      most = Math.max(most, ++out);
      try {
        const failure = failures[statement.name ?? ''];
        if (failure !== undefined) throw failure;
        return answers(statement) ?? (await real.query(statement));
      } finally {
        out--;
      }
    },
  };
  return { pool: pool as unknown as pg.Pool, names, mostAtOnce: () => most };
}

function statementTimeout(): pg.DatabaseError {
  const timeout = new pg.DatabaseError('canceling statement due to statement timeout', 0, 'error');
  timeout.code = '57014';
  return timeout;
}

/** Runs one batch, by default a new plant 2 and plant 1 again as stored (an idempotent retry, which needs the second statement). */
async function runBatch(
  pool: pg.Pool,
  plants = [
    { id: 2n, name: 'Moss' },
    { id: 1n, name: 'Fern' },
  ],
): Promise<PromiseSettledResult<CreateResult>[]> {
  const settled: Promise<CreateResult>[] = [];
  const batch: PendingCreate[] = plants.map(({ id, name }) => {
    const item = { owner: 'ana', plant: { id, name, tag: null } } as PendingCreate;
    settled.push(
      new Promise((resolve, reject) => {
        item.resolve = resolve;
        item.reject = reject;
      }),
    );
    return item;
  });
  const results = Promise.allSettled(settled); // handled before any create is rejected
  await writeCreates(pool)(batch);
  return results;
}

describe('a batch of creates on PostgreSQL whose second statement fails', { skip: postgres.reason }, () => {
  test('a statement error: the created plant is answered created, only the unsettled create goes again alone', async (t) => {
    const { pool, names } = await poolFailing(t, { plantstore_select_plants: statementTimeout() });
    const [moss, fern] = await runBatch(pool);
    assert.deepEqual(moss, { status: 'fulfilled', value: { outcome: 'created', stored: { id: 2n, name: 'Moss', tag: null } } });
    assert.deepEqual(fern, { status: 'fulfilled', value: { outcome: 'unchanged', stored: { id: 1n, name: 'Fern', tag: null } } });
    const alone = names.filter((name) => name === sql.insertPlant('', 0n, '', null).name);
    assert.equal(alone.length, 1, `only plant 1 is created again alone: ${names.join(', ')}`);
  });

  test('a lost connection: the created plant is answered created, the unsettled create 503', async (t) => {
    const { pool } = await poolFailing(t, { plantstore_select_plants: new Error('Connection terminated unexpectedly') });
    const [moss, fern] = await runBatch(pool);
    assert.deepEqual(moss, { status: 'fulfilled', value: { outcome: 'created', stored: { id: 2n, name: 'Moss', tag: null } } });
    assert.equal(fern?.status, 'rejected');
    assert.ok(fern.status === 'rejected' && fern.reason instanceof StoreUnavailableError, String(fern.status === 'rejected' && fern.reason));
  });
});

describe('a batch of creates on PostgreSQL whose insert fails', { skip: postgres.reason }, () => {
  const plants = Array.from({ length: 20 }, (_, i) => ({ id: BigInt(i + 2), name: `Plant ${i + 2}` }));

  test('a statement error: each create goes again alone, one statement at a time', async (t) => {
    const { pool, names, mostAtOnce } = await poolFailing(t, { plantstore_insert_plants: statementTimeout() });
    const settled = await runBatch(pool, plants);
    assert.deepEqual(
      settled.map((result) => (result.status === 'fulfilled' ? result.value.outcome : result.status)),
      plants.map(() => 'created'),
    );
    assert.equal(names.filter((name) => name === sql.insertPlant('', 0n, '', null).name).length, plants.length);
    assert.equal(mostAtOnce(), 1, 'the lone creates are sent one after another');
  });

  test('a lone create that finds the database unavailable: the rest get 503 without a statement', async (t) => {
    const { pool, names } = await poolFailing(t, {
      plantstore_insert_plants: statementTimeout(),
      plantstore_insert_plant: new Error('Connection terminated unexpectedly'),
    });
    const settled = await runBatch(pool, plants);
    assert.ok(settled.every((result) => result.status === 'rejected' && result.reason instanceof StoreUnavailableError));
    assert.equal(names.filter((name) => name === sql.insertPlant('', 0n, '', null).name).length, 1, names.join(', '));
  });
});

describe('a lone create whose id keeps being created and deleted', { skip: postgres.reason }, () => {
  test('it gets its own 503 and the creates after it go on', async (t) => {
    const plants = [2n, 3n, 4n].map((id) => ({ id, name: `Plant ${id}` }));
    // Plant 3's insert always meets a holder that is gone by the time it is read.
    const contended = (statement: Statement) =>
      statement.values?.[1] === '3' && (statement.name === sql.insertPlant('', 0n, '', null).name || statement.name === sql.selectPlant('', 0n).name)
        ? ({ rowCount: 0, rows: [] } as unknown as pg.QueryResult)
        : undefined;
    const { pool } = await poolFailing(t, { plantstore_insert_plants: statementTimeout() }, contended);
    const [two, three, four] = await runBatch(pool, plants);
    assert.equal(two?.status === 'fulfilled' && two.value.outcome, 'created');
    assert.ok(three?.status === 'rejected' && three.reason instanceof ApiError && three.reason.status === 503, String(three?.status === 'rejected' && three.reason));
    assert.match((three.reason as ApiError).message, /kept being created and deleted/);
    assert.equal(four?.status === 'fulfilled' && four.value.outcome, 'created');
  });
});
