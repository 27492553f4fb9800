/**
 * The writes of the SQLite store, run on the writer thread (writer-thread.ts). Each batch of
 * ops runs in one transaction, so a batch shares one commit and one fsync (write-batcher.ts).
 */
import type Database from 'better-sqlite3';
import { repeatOrConflict } from '../../plants/plant.js';
import type { CreateOutcome } from '../store.js';

export interface SerializedToken {
  id: string;
  /** SHA-256 of the token, hex. */
  digest: string;
  user: string;
  scopes: string;
  createdAt: number;
  expiresAt: number | null;
}

export type WriteOp =
  | { kind: 'createPlant'; owner: string; id: bigint; name: string; tag: string | null }
  | { kind: 'deletePlant'; owner: string; id: bigint }
  | { kind: 'createToken'; token: SerializedToken; onlyIfFirst: boolean }
  | { kind: 'revokeToken'; id: string; at: number }
  | { kind: 'touchToken'; id: string; at: number };

export type WriteResult =
  | { kind: 'createPlant'; outcome: CreateOutcome; name: string; tag: string | null }
  | { kind: 'changed'; changed: boolean };

/** Prepares the write statements once and returns the function that runs one batch. */
export function prepareWriter(db: Database.Database): (ops: WriteOp[]) => WriteResult[] {
  const insertPlant = db.prepare(
    'INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING',
  );
  const selectPlant = db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?');
  const deletePlant = db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?');
  const insertToken = db.prepare(
    'INSERT INTO api_tokens (id, digest, user_name, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const anyToken = db.prepare('SELECT 1 FROM api_tokens LIMIT 1');
  const revokeToken = db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  // As on PostgreSQL: a use that arrives late never moves the record back, and a revoked token's is not recorded.
  const touchToken = db.prepare(
    'UPDATE api_tokens SET last_used_at = @at WHERE id = @id AND revoked_at IS NULL AND (last_used_at IS NULL OR last_used_at < @at)',
  );

  const apply = (op: WriteOp): WriteResult => {
    switch (op.kind) {
      case 'createPlant': {
        if (insertPlant.run(op.owner, op.id, op.name, op.tag).changes === 1) {
          return { kind: 'createPlant', outcome: 'created', name: op.name, tag: op.tag };
        }
        const stored = selectPlant.get(op.owner, op.id) as { name: string; tag: string | null };
        const outcome = repeatOrConflict(op, stored);
        return { kind: 'createPlant', outcome, name: stored.name, tag: stored.tag };
      }
      case 'deletePlant':
        return { kind: 'changed', changed: deletePlant.run(op.owner, op.id).changes === 1 };
      case 'createToken': {
        if (op.onlyIfFirst && anyToken.get() !== undefined) return { kind: 'changed', changed: false };
        const t = op.token;
        insertToken.run(t.id, Buffer.from(t.digest, 'hex'), t.user, t.scopes, t.createdAt, t.expiresAt);
        return { kind: 'changed', changed: true };
      }
      case 'revokeToken':
        return { kind: 'changed', changed: revokeToken.run(op.at, op.id).changes === 1 };
      case 'touchToken':
        return { kind: 'changed', changed: touchToken.run({ at: op.at, id: op.id }).changes === 1 };
    }
  };

  const runBatch = db.transaction((ops: WriteOp[]) => ops.map(apply));
  return (ops) => runBatch.immediate(ops);
}
