/**
 * The client's plant types, taken from the service's OpenAPI document through the generated
 * openapi-types.ts (where int64 is bigint), so they follow the document when it changes.
 */
import type { components, operations } from './openapi-types.js';

type Schemas = components['schemas'];

/** What createPlant sends: the document's NewPlant. */
export type NewPlant = Schemas['NewPlant'];

/** A plant id: int64, kept exact as a bigint. */
export type PlantId = NewPlant['id'];

/** A plant as the client returns it: the document's Plant, with the id the client asks for. */
export type Plant = Schemas['Plant'] & { id: PlantId };

/** The document's Error body. */
export type ErrorBody = Schemas['Error'];

/** listPlants' options: the query of listPlants, less `fields` (the client always asks for every field). */
export type ListPlantsOptions = Omit<NonNullable<operations['listPlants']['parameters']['query']>, 'fields'> & { tag?: string } & RequestOptions;

/** One page of listPlants, and the cursor of the next one. */
export interface PlantPage {
  plants: Plant[];
  /** The `after` of the Link rel="next" header; undefined when this page is the last. */
  nextAfter: PlantId | undefined;
}

/** What every method also takes. */
export interface RequestOptions {
  /** Aborts the request, its retries and the pauses between them; the method rejects with the signal's reason. */
  signal?: AbortSignal;
}
