/**
 * The store's SQL, each statement named so that pg prepares it once per connection.
 * Values always travel as parameters; bigint ids go as their decimal text and come back as text.
 */
import type pg from 'pg';
import type { ListQuery, NewTokenRecord } from '../store.js';
import { TOKEN_COLUMNS } from '../token-row.js';

type Statement = pg.QueryConfig<unknown[]>;

/** Which of an owner's plants a list reads. */
type PlantFilter = Pick<ListQuery, 'after' | 'tag'>;

/** The WHERE clause for a filter, its values so far (after `leading`), and a statement name per shape of clause. */
function plantFilter(prefix: string, owner: string, filter: PlantFilter, leading: unknown[] = []): { name: string; where: string; values: unknown[] } {
  const values: unknown[] = [...leading, owner];
  let where = `owner = $${values.length}`;
  let name = prefix;
  if (filter.tag !== undefined) {
    values.push(filter.tag);
    where += ` AND tag = $${values.length}`;
    name += '_tag';
  }
  if (filter.after !== undefined) {
    values.push(filter.after.toString());
    where += ` AND id > $${values.length}`;
    name += '_after';
  }
  return { name, where, values };
}

/** A row when the token with this digest (a parameter or a column) is stored and unrevoked. */
const unrevoked = (digest: string): string => `SELECT 1 FROM api_tokens WHERE digest = ${digest} AND revoked_at IS NULL`;
/** The token row a TokenCheck stands for, if it is stored and unrevoked; its digest is $1. */
const VALID_TOKEN = unrevoked('$1');
/** One row when the digest $1 is NULL (no token left to check) or VALID_TOKEN finds its token; else none. */
const TOKEN_GATE = `SELECT 1 WHERE $1::bytea IS NULL OR EXISTS (${VALID_TOKEN})`;

const digestValue = (digest: string | undefined): Buffer | null => (digest === undefined ? null : Buffer.from(digest, 'hex'));

export const sql = {
  insertPlant: (owner: string, id: bigint, name: string, tag: string | null): Statement => ({
    name: 'plantstore_insert_plant',
    text: 'INSERT INTO plants (owner, id, name, tag) VALUES ($1, $2, $3, $4) ON CONFLICT (owner, id) DO NOTHING',
    values: [owner, id.toString(), name, tag],
  }),
  /**
   * Inserts a batch of plants in one statement. Rows go in (owner, id) order so that concurrent
   * batches take their row locks in one order and cannot deadlock; among rows of one key the
   * earliest in the batch wins. Answers, for every row whose key was inserted now, its position
   * (1-based) and the position of the row that won.
   */
  insertPlants: (owners: string[], ids: string[], names: string[], tags: (string | null)[]): Statement => ({
    name: 'plantstore_insert_plants',
    text: `WITH input AS (
             SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) WITH ORDINALITY AS t(owner, id, name, tag, n)
           ), inserted AS (
             INSERT INTO plants (owner, id, name, tag)
             SELECT owner, id, name, tag FROM input ORDER BY owner, id, n
             ON CONFLICT (owner, id) DO NOTHING
             RETURNING owner, id
           )
           SELECT input.n, min(input.n) OVER (PARTITION BY input.owner, input.id) AS winner
           FROM input JOIN inserted USING (owner, id)`,
    values: [owners, ids, names, tags],
  }),
  /** The stored plants at the given (owner, id) keys, each with the position it was asked at. */
  selectPlants: (owners: string[], ids: string[], positions: number[]): Statement => ({
    name: 'plantstore_select_plants',
    text: `SELECT k.n, p.name, p.tag
           FROM unnest($1::text[], $2::bigint[], $3::integer[]) AS k(owner, id, n)
           JOIN plants p ON p.owner = k.owner AND p.id = k.id`,
    values: [owners, ids, positions],
  }),
  selectPlant: (owner: string, id: bigint): Statement => ({
    name: 'plantstore_select_plant',
    text: 'SELECT name, tag FROM plants WHERE owner = $1 AND id = $2',
    values: [owner, id.toString()],
  }),
  /** Plants matching the filter, ascending, at most `limit`. */
  listPlants: (owner: string, filter: PlantFilter, limit: number): Statement => {
    const { name, where, values } = plantFilter('plantstore_list', owner, filter);
    values.push(limit);
    return { name, text: `SELECT id, name, tag FROM plants WHERE ${where} ORDER BY id LIMIT $${values.length}`, values };
  },
  /** The id at position `offset` (0-based) of a list, and the one after it if any. */
  listEdge: (owner: string, filter: PlantFilter, offset: number): Statement => {
    const { name, where, values } = plantFilter('plantstore_list_edge', owner, filter);
    values.push(offset);
    return { name, text: `SELECT id FROM plants WHERE ${where} ORDER BY id LIMIT 2 OFFSET $${values.length}`, values };
  },
  /**
   * The statements below check a token with the plant work: no row at all means the token is
   * not stored unrevoked (401), and nothing about plants was read or changed. Those that take an
   * optional digest skip the check without one.
   */
  validToken: (digest: string): Statement => ({
    name: 'plantstore_valid_token',
    text: VALID_TOKEN,
    values: [digestValue(digest)],
  }),
  /** The positions (1-based) of the digests whose token is stored unrevoked. */
  validTokens: (digests: Buffer[]): Statement => ({
    name: 'plantstore_valid_tokens',
    text: `SELECT k.n FROM unnest($1::bytea[]) WITH ORDINALITY AS k(digest, n)
           WHERE EXISTS (${unrevoked('k.digest')})`,
    values: [digests],
  }),
  /** One row when the token is valid: the plant, or NULLs when there is none. */
  checkedPlant: (digest: string | undefined, owner: string, id: bigint): Statement => ({
    name: 'plantstore_checked_plant',
    text: `SELECT p.id, p.name, p.tag FROM (${TOKEN_GATE}) t LEFT JOIN plants p ON p.owner = $2 AND p.id = $3`,
    values: [digestValue(digest), owner, id.toString()],
  }),
  /** When the token is valid, the page, or one row of NULLs when it is empty. */
  checkedListPlants: (digest: string | undefined, owner: string, filter: PlantFilter, limit: number): Statement => {
    const { name, where, values } = plantFilter('plantstore_checked_list', owner, filter, [digestValue(digest)]);
    values.push(limit);
    return {
      name,
      text: `SELECT p.id, p.name, p.tag FROM (${TOKEN_GATE}) t
             LEFT JOIN LATERAL (SELECT id, name, tag FROM plants WHERE ${where} ORDER BY id LIMIT $${values.length}) p ON true`,
      values,
    };
  },
  /**
   * Many pages at once, each from `first` on: for every page whose digest is NULL or names a
   * valid token, its position (1-based) with its plants, or with one row of NULLs when it is
   * empty; for a page whose token is not valid, no row.
   */
  checkedPages: (owners: string[], firsts: string[], limits: number[], digests: (Buffer | null)[]): Statement => ({
    name: 'plantstore_checked_pages',
    text: `SELECT k.n, p.id, p.name, p.tag
           FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::bytea[]) WITH ORDINALITY AS k(owner, first, lim, digest, n)
           LEFT JOIN LATERAL (SELECT id, name, tag FROM plants WHERE owner = k.owner AND id >= k.first ORDER BY id LIMIT k.lim) p ON true
           WHERE k.digest IS NULL OR EXISTS (${unrevoked('k.digest')})
           ORDER BY k.n, p.id`,
    values: [owners, firsts, limits, digests],
  }),
  /** One row when the token is valid, with how many plants it deleted (0 or 1). */
  checkedDeletePlant: (digest: string | undefined, owner: string, id: bigint): Statement => ({
    name: 'plantstore_checked_delete_plant',
    text: `WITH t AS (${TOKEN_GATE}),
           d AS (DELETE FROM plants WHERE owner = $2 AND id = $3 AND EXISTS (SELECT 1 FROM t) RETURNING 1)
           SELECT (SELECT count(*) FROM d)::integer AS deleted FROM t`,
    values: [digestValue(digest), owner, id.toString()],
  }),
  insertToken: (token: NewTokenRecord): Statement => ({
    name: 'plantstore_insert_token',
    text: 'INSERT INTO api_tokens (id, digest, user_name, scopes, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
    values: [token.id, Buffer.from(token.digest, 'hex'), token.user, token.scopes.join(' '), token.createdAt, token.expiresAt],
  }),
  /** Inserts only into an empty token table; run under the first-token lock. */
  insertFirstToken: (token: NewTokenRecord): Statement => ({
    name: 'plantstore_insert_first_token',
    text: `INSERT INTO api_tokens (id, digest, user_name, scopes, created_at, expires_at)
           SELECT $1, $2, $3, $4, $5, $6 WHERE NOT EXISTS (SELECT 1 FROM api_tokens)`,
    values: [token.id, Buffer.from(token.digest, 'hex'), token.user, token.scopes.join(' '), token.createdAt, token.expiresAt],
  }),
  tokenByDigest: (digest: string): Statement => ({
    name: 'plantstore_token_by_digest',
    text: `SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE digest = $1`,
    values: [Buffer.from(digest, 'hex')],
  }),
  tokens: (): Statement => ({
    name: 'plantstore_tokens',
    text: `SELECT ${TOKEN_COLUMNS} FROM api_tokens ORDER BY created_at, id`,
    values: [],
  }),
  revokeToken: (id: string, at: Date): Statement => ({
    name: 'plantstore_revoke_token',
    text: 'UPDATE api_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL',
    values: [id, at],
  }),
  /** Never moves "last used" backwards when instances touch the same token out of order, nor touches a revoked token. */
  touchToken: (id: string, at: Date): Statement => ({
    name: 'plantstore_touch_token',
    text: 'UPDATE api_tokens SET last_used_at = $2 WHERE id = $1 AND revoked_at IS NULL AND (last_used_at IS NULL OR last_used_at < $2)',
    values: [id, at],
  }),
} as const;
