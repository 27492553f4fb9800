/** Rows as pg returns them, and their conversion to the store's records. */
import type { StoredPlant } from '../../plants/plant.js';
import type { Scope, TokenRecord } from '../store.js';

/** pg returns int8 as text so no precision is lost; BigInt keeps it exact. */
export interface PlantRow {
  id: string;
  name: string;
  tag: string | null;
}

export interface TokenRow {
  id: string;
  user_name: string;
  scopes: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export function toStoredPlant(row: PlantRow): StoredPlant {
  return { id: BigInt(row.id), name: row.name, tag: row.tag };
}

export function toTokenRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    user: row.user_name,
    scopes: row.scopes.split(' ') as Scope[],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
