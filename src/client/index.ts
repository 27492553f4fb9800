/**
 * plantstore/client: a lossless typed client for the plantstore HTTP API.
 * `import { PlantStoreClient, PlantStoreError } from 'plantstore/client'`.
 */
export { PlantStoreClient, type FetchLike, type PlantStoreClientOptions } from './plant-store-client.js';
export { PlantStoreError, PlantStoreResponseError } from './errors.js';
export type { ErrorBody, ListPlantsOptions, NewPlant, Plant, PlantId, PlantPage, RequestOptions } from './types.js';
