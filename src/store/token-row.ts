/** An api_tokens row as either database returns it, and the one mapping to a TokenRecord. */
import type { Scope, TokenRecord } from './store.js';

/** The token columns every token query selects. */
export const TOKEN_COLUMNS = 'id, user_name, scopes, created_at, expires_at, last_used_at, revoked_at';

/** Times are milliseconds since the epoch in SQLite and timestamptz (Date) in PostgreSQL. */
type Time = Date | bigint;

export interface TokenRow {
  id: string;
  user_name: string;
  scopes: string;
  created_at: Time;
  expires_at: Time | null;
  last_used_at: Time | null;
  revoked_at: Time | null;
}

function date(time: Time): Date {
  return time instanceof Date ? time : new Date(Number(time));
}

function optionalDate(time: Time | null): Date | null {
  return time === null ? null : date(time);
}

export function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    user: row.user_name,
    scopes: row.scopes.split(' ') as Scope[],
    createdAt: date(row.created_at),
    expiresAt: optionalDate(row.expires_at),
    lastUsedAt: optionalDate(row.last_used_at),
    revokedAt: optionalDate(row.revoked_at),
  };
}
