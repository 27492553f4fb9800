/**
 * Pages of plants as SQLite renders them: each row is one plant's JSON object, made by SQLite
 * exactly as plantJson (plants/plant.ts) makes it, so that no JavaScript value is built per
 * column (docs/performance.md, "Pages rendered by SQLite").
 */
import type Database from 'better-sqlite3';
import type { PlantFields } from '../../plants/plant.js';
import type { PageQuery, PlantPage } from '../store.js';
import { plantFilter } from './plant-filter.js';

/**
 * plantJson as an SQL expression. json_quote escapes a string as JSON.stringify does for every
 * text the plant rules admit (no lone surrogates), and an integer prints exactly.
 */
function plantJsonSql(fields: PlantFields): string {
  const members: string[] = [];
  if (fields.id) members.push("'id', id");
  if (fields.name) members.push("'name', name");
  const withoutTag = `json_object(${members.join(', ')})`;
  if (!fields.tag) return withoutTag;
  return `iif(tag IS NULL, ${withoutTag}, json_object(${[...members, "'tag', tag"].join(', ')}))`;
}

// `LIMIT ? + 0`: a bare bound LIMIT makes SQLite prepare the statement again on every call.

/** The plants of a page as JSON, one per row, in id order. */
export function pageSql(from: string, fields: PlantFields): string {
  return `SELECT ${plantJsonSql(fields)} FROM ${from} ORDER BY id LIMIT ? + 0`;
}

/** The id of the last of the first `?` plants, for pages that do not show ids. */
export function lastIdSql(from: string): string {
  return `SELECT max(id) FROM (SELECT id FROM ${from} ORDER BY id LIMIT ? + 0)`;
}

/** Where the id starts in a plant's JSON that shows it: plantJsonSql puts it first. */
const ID_AT = '{"id":'.length;

/** The id in a plant's JSON made by plantJsonSql with the id: `{"id":<integer>,…}` or `{"id":<integer>}`. */
function idInJson(json: string): bigint {
  const comma = json.indexOf(',', ID_AT);
  return BigInt(json.slice(ID_AT, comma === -1 ? -1 : comma));
}

interface PageStatements {
  plants: Database.Statement;
  lastId: Database.Statement;
}

export class PageReads {
  /**
   * Statements by the shape of the query, prepared on first use. The FROM clause depends only on
   * whether `tag` and `after` are given, so two bits for those and three for `fields` name every
   * statement without building its SQL on each read.
   */
  private readonly statements: (PageStatements | undefined)[] = [];

  constructor(private readonly db: Database.Database) {}

  /** Reads a page; the caller holds the read transaction, so both statements see one snapshot. */
  read(owner: string, query: PageQuery): PlantPage {
    const { from, params } = plantFilter(owner, query);
    const { fields } = query;
    const shape = (query.tag === undefined ? 0 : 16) | (query.after === undefined ? 0 : 8) | (fields.id ? 4 : 0) | (fields.name ? 2 : 0) | (fields.tag ? 1 : 0);
    let statements = this.statements[shape];
    if (statements === undefined) {
      statements = { plants: this.db.prepare(pageSql(from, fields)).pluck(true), lastId: this.db.prepare(lastIdSql(from)).pluck(true) };
      this.statements[shape] = statements;
    }
    const plants = statements.plants.all(...params, query.limit + 1) as string[];
    if (plants.length <= query.limit) return { members: plants.join(','), nextAfter: undefined };
    plants.pop();
    // A page that shows ids has its last one in hand; reading it again costs a statement.
    const nextAfter = fields.id ? idInJson(plants[plants.length - 1] as string) : (statements.lastId.get(...params, query.limit) as bigint);
    return { members: plants.join(','), nextAfter };
  }
}
