/**
 * The page reads of one event-loop turn go to PostgreSQL as one statement at its end: each
 * read's token check and page, joined laterally over arrays of the reads. One statement for
 * many pages is less work for plantstore and for the database than one each. A lone read goes
 * as the ordinary statement.
 */
import type pg from 'pg';
import { INT64_MAX, INT64_MIN } from '../../plants/int64.js';
import { mapPgErrors } from './pg-errors.js';
import type { PlantRow } from './rows.js';
import { sql } from './statements.js';

/** Pages in one statement: enough for a busy turn, few enough to keep the statement short. */
const MAX_BATCH = 100;

/** A plant row of a statement that checks a token: all NULL when the token is valid but no plant matched. */
export type OptionalPlantRow = { [K in keyof PlantRow]: PlantRow[K] | null };

/** One page an owner asked for: plants with ids above `after`, at most `limit`, after its token check. */
export interface PageRead {
  owner: string;
  after: bigint | undefined;
  limit: number;
  /** The token to check, hex; undefined when it was checked already. */
  digest: string | undefined;
}

interface Pending extends PageRead {
  /** The rows, or undefined when the token is not valid. */
  resolve(rows: OptionalPlantRow[] | undefined): void;
  reject(error: unknown): void;
}

/** Whether a page can share a batch: a tag filter or `after` at the top of the range goes alone. */
export function batchable(after: bigint | undefined, tag: string | undefined): boolean {
  return tag === undefined && after !== INT64_MAX;
}

export class PageBatcher {
  private queue: Pending[] = [];

  /** `schedule` asks for `send` at the end of the turn. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly schedule: () => void,
  ) {}

  /** The page's rows (a single row of NULLs for an empty page after a token check), or undefined when the token is refused. */
  read(page: PageRead): Promise<OptionalPlantRow[] | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...page, resolve, reject });
      this.schedule();
    });
  }

  /** Sends the turn's reads. */
  send(): void {
    const queue = this.queue;
    this.queue = [];
    for (let start = 0; start < queue.length; start += MAX_BATCH) void this.sendBatch(queue.slice(start, start + MAX_BATCH));
  }

  private async sendBatch(batch: Pending[]): Promise<void> {
    try {
      if (batch.length === 1) {
        const [page] = batch as [Pending];
        return page.resolve(await this.readOne(page));
      }
      const pages: OptionalPlantRow[][] = batch.map(() => []);
      const { rows } = await mapPgErrors(() =>
        this.pool.query<OptionalPlantRow & { n: string }>(
          sql.checkedPages(
            batch.map((page) => page.owner),
            // ids from `after` + 1 on; INT64_MIN for the first page.
            batch.map((page) => (page.after === undefined ? INT64_MIN : page.after + 1n).toString()),
            batch.map((page) => page.limit),
            batch.map((page) => (page.digest === undefined ? null : Buffer.from(page.digest, 'hex'))),
          ),
        ),
      );
      for (const row of rows) pages[Number(row.n) - 1]?.push(row);
      batch.forEach((page, index) => {
        const found = pages[index] as OptionalPlantRow[];
        // A page whose token is valid has at least its row of NULLs; none means refused.
        page.resolve(found.length === 0 ? undefined : found);
      });
    } catch (error) {
      for (const page of batch) page.reject(error);
    }
  }

  private async readOne(page: PageRead): Promise<OptionalPlantRow[] | undefined> {
    const filter = { after: page.after, tag: undefined };
    const { rows } = await mapPgErrors(() => this.pool.query<OptionalPlantRow>(sql.checkedListPlants(page.digest, page.owner, filter, page.limit)));
    return rows.length === 0 ? undefined : rows;
  }
}
