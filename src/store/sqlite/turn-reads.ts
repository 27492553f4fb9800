/**
 * The reads of one event-loop turn share one read transaction on the event loop's connection:
 * a statement on its own opens and closes a transaction, and with it the file locks, which costs
 * more than the read (docs/performance.md, "One read transaction per turn"). The transaction
 * ends at the end of the turn, and at once when a write is acknowledged, so that a client that
 * got its 200 or 204 reads its own change; it never shows more than is committed and synced.
 */
import type Database from 'better-sqlite3';
import type { EndOfTurn } from '../../util/end-of-turn.js';
import { mapSqliteErrors } from './sqlite-errors.js';

export class TurnReads {
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly scheduleEnd: () => void;

  constructor(
    private readonly db: Database.Database,
    endOfTurn: EndOfTurn,
  ) {
    this.begin = db.prepare('BEGIN');
    this.commit = db.prepare('COMMIT');
    endOfTurn.set('endReads', () => this.end());
    this.scheduleEnd = endOfTurn.schedule;
  }

  /** Runs `read` inside this turn's read transaction, opening it if needed. */
  run<T>(read: () => T): T {
    return mapSqliteErrors(() => {
      if (!this.db.inTransaction) {
        this.begin.run();
        this.scheduleEnd();
      }
      return read();
    });
  }

  /** Ends the transaction, if one is open: the next read sees every commit made until now. */
  end(): void {
    if (this.db.inTransaction) mapSqliteErrors(() => this.commit.run());
  }
}
