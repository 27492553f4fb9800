/** The request mix of the benchmark's mixed and many scenarios and of the soak. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LAG, ManyMix, type MixRequest } from '../../bench/many-mix.js';

const owners = [
  { token: 't0', ids: [-5, 7_000_000_000_000] },
  { token: 't1', ids: [9_000_000_000_000_000] },
  { token: 't2', ids: [-1] },
];

describe('the many mix', () => {
  test('of every 20 requests 16 are GETs, 3 creates, 1 a delete once LAG creates are behind', () => {
    const mix = new ManyMix(owners, 1000);
    const requests: MixRequest[] = Array.from({ length: 20_000 }, () => mix.next());
    const count = (kind: string) => requests.filter((r) => r.kind === kind).length;
    assert.equal(count('create'), 3000);
    // The first deletes wait until LAG creates were sent; those slots are GETs.
    assert.ok(count('delete') > 1000 - LAG / 3 - 2 && count('delete') <= 1000, `deletes ${count('delete')}`);
    assert.equal(count('get'), 20_000 - count('create') - count('delete'));
  });

  test("each delete is of a plant created at least LAG creates earlier, with its creator's token", () => {
    const mix = new ManyMix(owners, 1000);
    const created = new Map<number, { owner: number; index: number }>();
    let creates = 0;
    for (let i = 0; i < 10_000; i++) {
      const r = mix.next();
      if (r.kind === 'create') {
        assert.equal(r.method, 'POST');
        assert.deepEqual(JSON.parse(r.body ?? ''), { id: 1000 + creates + 1, name: `bench plant ${creates + 1}`, tag: 'bench' });
        created.set(r.id as number, { owner: r.owner, index: creates++ });
      } else if (r.kind === 'delete') {
        const plant = created.get(r.id as number);
        assert.ok(plant !== undefined, `delete of ${r.id} before its create`);
        assert.equal(r.owner, plant.owner);
        assert.equal(r.path, `/plants/${r.id}`);
        assert.ok(creates - plant.index > LAG, 'a delete follows its create by more than LAG creates');
        created.delete(r.id as number);
      }
    }
  });

  test("a GET asks for 10 plants after one of the chosen owner's seeded ids, or none without ids", () => {
    const mix = new ManyMix(owners, 0);
    for (let i = 0; i < 200; i++) {
      const r = mix.next();
      if (r.kind !== 'get') continue;
      const after = Number(new URLSearchParams(r.path.split('?')[1]).get('after'));
      assert.ok(owners[r.owner]?.ids.includes(after), r.path);
      assert.equal(mix.tokenOf(r), owners[r.owner]?.token);
    }
    const single = new ManyMix([{ token: 'solo', ids: [] }], 0);
    assert.equal(single.next().path, '/plants?limit=10');
  });
});
