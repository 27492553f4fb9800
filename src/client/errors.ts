/** The errors the client throws: a refusal by the service, or an answer it cannot read. */

/** The service refused the request: `status` is the HTTP status, `message` the Error body's sentence. */
export class PlantStoreError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PlantStoreError';
  }
}

/** The service answered with a status the operation allows but a body it does not describe. */
export class PlantStoreResponseError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PlantStoreResponseError';
  }
}
