/** The OpenAPI 3.1 document, built once at start. */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'plantstore', version: '1.0.0' },
    paths: {},
  };
}

export function openApiJson(): string {
  return JSON.stringify(openApiDocument());
}
