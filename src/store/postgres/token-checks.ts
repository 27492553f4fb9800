/**
 * The token checks of one event-loop turn go to PostgreSQL as one statement at its end. A create
 * confirms its token before it reads its body, apart from its insert, so a busy turn holds
 * several; one statement for all of them is less work for plantstore and the database than one
 * each.
 */
import type pg from 'pg';
import { mapPgErrors } from './pg-errors.js';
import { sql } from './statements.js';

interface Check {
  digest: Buffer;
  resolve(valid: boolean): void;
  reject(error: unknown): void;
}

export class TokenChecks {
  private queue: Check[] = [];

  /** `schedule` asks for `send` at the end of the turn. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly schedule: () => void,
  ) {}

  /** Whether the token with this SHA-256 digest (hex) is stored and not revoked. */
  isValid(digest: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ digest: Buffer.from(digest, 'hex'), resolve, reject });
      this.schedule();
    });
  }

  /** Sends the turn's checks. */
  send(): void {
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    void mapPgErrors(() => this.pool.query<{ n: string }>(sql.validTokens(batch.map((check) => check.digest)))).then(
      ({ rows }) => {
        const valid = new Set(rows.map((row) => Number(row.n)));
        batch.forEach((check, index) => check.resolve(valid.has(index + 1)));
      },
      (error: unknown) => {
        for (const check of batch) check.reject(error);
      },
    );
  }
}
