/** Plant rows as pg returns them, and their conversion to the store's records. */
import type { StoredPlant } from '../../plants/plant.js';

/** pg returns int8 as text so no precision is lost; BigInt keeps it exact. */
export interface PlantRow {
  id: string;
  name: string;
  tag: string | null;
}

export function toStoredPlant(row: PlantRow): StoredPlant {
  return { id: BigInt(row.id), name: row.name, tag: row.tag };
}
