/**
 * `plants import`: creates plants in parallel batches. Before creating a batch it asks which
 * of its ids exist already (one list request over the batch's id range, GET /plants/{id} for
 * what that leaves open), so the summary can tell created from unchanged, and a re-run after
 * an interruption only reads what the first run wrote. A create is idempotent anyway: one that
 * races another client still answers 200 for the same plant and 409 for a different one.
 */
import { PlantStoreError, type NewPlant, type Plant, type PlantStoreClient } from '../client/index.js';
import { INT64_MIN } from '../plants/int64.js';
import { NotUtf8Error, type InputItem } from './plant-input.js';

export interface ImportSummary {
  created: number;
  unchanged: number;
  conflicts: { line: number; id: bigint }[];
  refused: { line: number; reason: string }[];
}

export interface ImportOptions {
  /** Plants per batch (default 500). */
  batchSize?: number;
  /** Creates in flight at once (default 32). */
  concurrency?: number;
  /** Plants per lookup page (default 1000, the most the service reads in one query). */
  lookupPageSize?: number;
  /** Called after each plant is settled, with the running summary. */
  onProgress?: (summary: Readonly<ImportSummary>) => void;
}

/** The import stopped at a refusal that concerns every line (a bad token, a service that stays down). */
export class ImportStoppedError extends Error {
  constructor(
    readonly summary: ImportSummary,
    readonly line: number,
    readonly cause: unknown,
  ) {
    super(`the import stopped at line ${line}`);
    this.name = 'ImportStoppedError';
  }
}

type Pending = { line: number; plant: NewPlant };

const LOOKUP_PAGES = 3;

/** Imports every item; throws ImportStoppedError, with the summary so far, when the service refuses the import as a whole. */
export async function importPlants(client: PlantStoreClient, items: AsyncIterable<InputItem>, options: ImportOptions = {}): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 500;
  const batchOptions = { concurrency: options.concurrency ?? 32, lookupPageSize: options.lookupPageSize ?? 1000 };
  const summary: ImportSummary = { created: 0, unchanged: 0, conflicts: [], refused: [] };
  const progress = () => options.onProgress?.(summary);

  let batch: Pending[] = [];
  let ids = new Set<bigint>();
  const flush = async () => {
    await importBatch(client, batch, batchOptions, summary, progress);
    batch = [];
    ids = new Set();
  };
  let lastLine = 0;
  try {
    for await (const item of items) {
      lastLine = item.line;
      if ('refused' in item) {
        summary.refused.push({ line: item.line, reason: item.refused });
        progress();
        continue;
      }
      // A repeated id waits for the next batch, where the lookup sees the first one.
      if (ids.has(item.plant.id)) await flush();
      batch.push(item);
      ids.add(item.plant.id);
      if (batch.length >= batchSize) await flush();
    }
  } catch (error) {
    // The input itself failed (bytes that are not UTF-8) after lines were read: those are
    // imported, and the summary says where it stopped, as for a refusal of the whole import.
    if (error instanceof ImportStoppedError || lastLine === 0) throw error;
    if (batch.length > 0) await flush();
    throw new ImportStoppedError(summary, error instanceof NotUtf8Error ? error.line : lastLine + 1, error);
  }
  if (batch.length > 0) await flush();
  summary.conflicts.sort((a, b) => a.line - b.line);
  summary.refused.sort((a, b) => a.line - b.line);
  return summary;
}

/** What the service holds for the batch's ids: the plants found, and the highest id the lookup covered. */
async function lookUp(client: PlantStoreClient, batch: Pending[], pageSize: number): Promise<{ found: Map<bigint, Plant>; coveredTo: bigint | undefined }> {
  const wanted = new Set(batch.map((item) => item.plant.id));
  const sorted = [...wanted].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const min = sorted[0] as bigint;
  const max = sorted.at(-1) as bigint;
  const found = new Map<bigint, Plant>();
  let after = min === INT64_MIN ? undefined : min - 1n;
  for (let pages = 0; pages < LOOKUP_PAGES; pages++) {
    const page = await client.listPlants({ limit: pageSize, after });
    for (const plant of page.plants) if (wanted.has(plant.id)) found.set(plant.id, plant);
    const last = page.plants.at(-1);
    if (page.nextAfter === undefined || last === undefined || last.id >= max) return { found, coveredTo: max };
    after = page.nextAfter;
  }
  return { found, coveredTo: after };
}

function same(a: NewPlant, b: Plant): boolean {
  return a.name === b.name && a.tag === b.tag;
}

async function importBatch(
  client: PlantStoreClient,
  batch: Pending[],
  options: { concurrency: number; lookupPageSize: number },
  summary: ImportSummary,
  progress: () => void,
): Promise<void> {
  if (batch.length === 0) return;
  const first = batch[0] as Pending;
  let lookup;
  try {
    lookup = await lookUp(client, batch, options.lookupPageSize);
  } catch (error) {
    throw new ImportStoppedError(summary, first.line, error);
  }
  const { found, coveredTo } = lookup;

  const importOne = async ({ line, plant }: Pending) => {
    let stored = found.get(plant.id);
    if (stored === undefined && (coveredTo === undefined || plant.id > coveredTo)) stored = await getIfExists(client, plant.id);
    if (stored !== undefined) {
      if (same(plant, stored)) summary.unchanged++;
      else summary.conflicts.push({ line, id: plant.id });
      return;
    }
    try {
      await client.createPlant(plant);
      summary.created++;
    } catch (error) {
      if (!(error instanceof PlantStoreError)) throw error;
      if (error.status === 409) summary.conflicts.push({ line, id: plant.id });
      else if (error.status === 400 || error.status === 413) summary.refused.push({ line, reason: error.message });
      else throw error;
    }
  };

  let next = 0;
  let failure: { line: number; error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < batch.length) {
      const item = batch[next++] as Pending;
      try {
        await importOne(item);
        progress();
      } catch (error) {
        failure ??= { line: item.line, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, batch.length) }, worker));
  if (failure !== undefined) throw new ImportStoppedError(summary, failure.line, failure.error);
}

async function getIfExists(client: PlantStoreClient, id: bigint): Promise<Plant | undefined> {
  try {
    return await client.getPlant(id);
  } catch (error) {
    if (error instanceof PlantStoreError && error.status === 404) return undefined;
    throw error;
  }
}
