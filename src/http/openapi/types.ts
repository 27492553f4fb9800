/**
 * The part of the OpenAPI 3.1 object model that plantstore's document uses. Typed so the
 * document is checked as it is written and so test helpers can walk it without casts.
 */

/** A JSON Schema (2020-12 dialect, as OpenAPI 3.1 uses it). */
export type JsonSchema = { [keyword: string]: unknown };

// A type alias rather than an interface, so that a Reference is also a JsonSchema.
export type Reference = { $ref: string };

export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

/** An Example Object: a named example of a body. */
export interface ExampleObject {
  summary: string;
  value: unknown;
}

export interface MediaTypeObject {
  schema?: JsonSchema;
  examples?: Record<string, ExampleObject>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header';
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: (ParameterObject | Reference)[];
  requestBody?: { description: string; required: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject | Reference>;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItemObject = {
  description?: string;
  parameters?: (ParameterObject | Reference)[];
} & Partial<Record<HttpMethod, OperationObject>>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; summary: string; description: string; license: { name: string; identifier: string } };
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, HeaderObject>;
    parameters: Record<string, ParameterObject>;
    securitySchemes: Record<string, { type: 'http'; scheme: string; bearerFormat: string; description: string }>;
  };
}
