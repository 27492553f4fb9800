/**
 * Checks real HTTP responses against plantstore's own OpenAPI document:
 *
 *   const body = await assertMatchesOpenApi(response, 'POST', '/plants');
 *
 * The status must be documented for the operation, every required header present and every
 * documented header valid, the Content-Type one of the documented media types, and the body
 * valid against the schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it). An unknown path
 * is held to components/responses/NotFound, an unlisted method to MethodNotAllowed (whose
 * Allow must list exactly the documented methods), OPTIONS to Preflight, HEAD to the GET
 * operation without a body.
 */
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../src/http/openapi.js';
import {
  HTTP_METHODS,
  type HeaderObject,
  type HttpMethod,
  type OpenApiDocument,
  type PathItemObject,
  type Reference,
  type ResponseObject,
} from '../../src/http/openapi/types.js';

const BASE = 'urn:plantstore:openapi';
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** What a response was checked against: the path template and the response's JSON pointer. */
interface Expectation {
  template: string | undefined;
  pointer: string;
  response: ResponseObject;
  /** Methods the path answers (for Allow on 405), when the path is known. */
  allow: string[] | undefined;
  withBody: boolean;
}

let cached: { document: OpenApiDocument; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

function state() {
  if (cached !== undefined) return cached;
  const document = openApiDocument();
  // Strict mode catches schema keywords that ajv does not know, i.e. mistakes in the document.
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  // Only `components` is registered (as an annotation keyword), so the document's
  // '#/components/…' references resolve against it while strict mode checks every schema.
  ajv.addKeyword({ keyword: 'components' });
  ajv.addSchema({ $id: BASE, components: { schemas: withAbsoluteRefs(document.components.schemas) } });
  cached = { document, ajv, validators: new Map() };
  return cached;
}

function escapePointer(part: string): string {
  return encodeURIComponent(part.replaceAll('~', '~0').replaceAll('/', '~1'));
}

function pointerOf(...parts: string[]): string {
  return parts.map((part) => '/' + escapePointer(part)).join('');
}

/** A copy of a schema whose local references point into the registered components. */
function withAbsoluteRefs(value: unknown): object {
  return JSON.parse(JSON.stringify(value), (key, item: unknown) =>
    key === '$ref' && typeof item === 'string' && item.startsWith('#') ? `${BASE}${item}` : item,
  ) as object;
}

function nodeAt(pointer: string): unknown {
  let node: unknown = state().document;
  for (const part of pointer.split('/').slice(1)) {
    node = (node as Record<string, unknown> | undefined)?.[decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

function validatorAt(pointer: string): ValidateFunction {
  const { ajv, validators } = state();
  let validate = validators.get(pointer);
  if (validate === undefined) {
    const schema = nodeAt(pointer);
    assert.ok(schema !== undefined, `the document has no schema at ${pointer}`);
    validate = ajv.compile(withAbsoluteRefs(schema));
    validators.set(pointer, validate);
  }
  return validate;
}

function isReference(value: object): value is Reference {
  return '$ref' in value;
}

/** Follows a local '#/components/<kind>/<name>' reference; returns the target and its pointer. */
function resolve<T extends object>(value: T | Reference, pointer: string): { value: T; pointer: string } {
  if (!isReference(value)) return { value, pointer };
  const target = value.$ref.slice(1);
  let node: unknown = state().document;
  for (const part of target.split('/').slice(1)) {
    node = (node as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  assert.ok(node !== undefined && typeof node === 'object', `the document's reference ${value.$ref} leads nowhere`);
  return { value: node as T, pointer: target.split('/').slice(1).map((part) => '/' + encodeURIComponent(part)).join('') };
}

function matchTemplate(paths: Record<string, PathItemObject>, pathname: string): string | undefined {
  if (paths[pathname] !== undefined) return pathname;
  const segments = pathname.split('/');
  return Object.keys(paths).find((template) => {
    const parts = template.split('/');
    // A {param} takes one whole segment, possibly empty, as the router does (DELETE /plants/ is a 400).
    return parts.length === segments.length && parts.every((part, i) => /^\{.+\}$/.test(part) || part === segments[i]);
  });
}

function methodsOf(item: PathItemObject): HttpMethod[] {
  return HTTP_METHODS.filter((method) => item[method] !== undefined);
}

function found(resolved: { value: ResponseObject; pointer: string }): { response: ResponseObject; pointer: string } {
  return { response: resolved.value, pointer: resolved.pointer };
}

function expectationFor(method: string, pathname: string, status: number): Expectation | string {
  const { document } = state();
  const template = matchTemplate(document.paths, pathname);
  const component = (name: string) => found(resolve<ResponseObject>({ $ref: `#/components/responses/${name}` }, ''));
  const verb = method.toLowerCase() as HttpMethod;
  if (template === undefined) {
    if (status !== 404) return `${pathname} is not a documented path, so only 404 may answer it (got ${status})`;
    return { template, ...component('NotFound'), allow: undefined, withBody: verb !== 'head' };
  }
  const item = document.paths[template] as PathItemObject;
  const listed = methodsOf(item);
  const allow = [...listed.map((m) => m.toUpperCase()), ...(listed.includes('get') ? ['HEAD'] : [])];
  const operationMethod = verb === 'head' && item.head === undefined ? 'get' : verb;
  const operation = item[operationMethod];
  if (operation === undefined) {
    const name = verb === 'options' ? 'Preflight' : 'MethodNotAllowed';
    const expected = verb === 'options' ? 204 : 405;
    if (status !== expected) return `${method} ${template} is not a documented operation, so only ${expected} may answer it (got ${status})`;
    return { template, ...component(name), allow, withBody: verb !== 'head' };
  }
  const documented = operation.responses[String(status)];
  if (documented === undefined) {
    return `status ${status} is not documented for ${method} ${template} (documented: ${Object.keys(operation.responses).join(', ')})`;
  }
  const base = pointerOf('paths', template, operationMethod, 'responses', String(status));
  return { template, ...found(resolve(documented, base)), allow, withBody: verb !== 'head' };
}

function schemaProblems(validate: ValidateFunction, value: unknown, what: string): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${what}${e.instancePath} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`);
}

function headerProblems(response: Response, expected: Expectation): string[] {
  const problems: string[] = [];
  for (const [name, header] of Object.entries(expected.response.headers ?? {})) {
    const resolved = resolve<HeaderObject>(header, `${expected.pointer}${pointerOf('headers', name)}`);
    const value = response.headers.get(name);
    if (value === null) {
      if (resolved.value.required === true) problems.push(`header ${name} is required but missing`);
      continue;
    }
    problems.push(...schemaProblems(validatorAt(`${resolved.pointer}/schema`), value, `header ${name}`));
  }
  if (expected.allow !== undefined && expected.response.headers?.Allow !== undefined) {
    const allow = (response.headers.get('allow') ?? '').split(',').map((m) => m.trim()).sort();
    if (allow.join() !== [...expected.allow].sort().join()) {
      problems.push(`Allow is "${response.headers.get('allow')}" but the path documents ${expected.allow.join(', ')}`);
    }
  }
  return problems;
}

function isJsonType(essence: string): boolean {
  return essence === 'application/json' || essence.endsWith('+json');
}

async function bodyProblems(response: Response, expected: Expectation): Promise<{ problems: string[]; body: unknown }> {
  const text = await response.text();
  const content = expected.response.content ?? {};
  const types = Object.keys(content);
  if (types.length === 0) return { problems: text === '' ? [] : [`the response documents no body but has ${text.length} characters`], body: undefined };
  const essence = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const type = types.find((candidate) => candidate.toLowerCase() === essence);
  if (type === undefined) return { problems: [`Content-Type "${essence}" is not one of ${types.join(', ')}`], body: text };
  if (!expected.withBody) return { problems: [], body: undefined };
  let body: unknown = text;
  if (isJsonType(essence)) {
    try {
      body = JSON.parse(text);
    } catch {
      return { problems: [`the body is not JSON: ${text.slice(0, 200)}`], body: text };
    }
  } else if (!essence.startsWith('text/')) {
    return { problems: [], body: undefined }; // binary: OpenAPI 3.1 describes it by media type only
  }
  if (content[type]?.schema === undefined) return { problems: [], body };
  const pointer = `${expected.pointer}${pointerOf('content', type, 'schema')}`;
  return { problems: schemaProblems(validatorAt(pointer), body, 'body'), body };
}

/**
 * Everything about `response` that disagrees with the document, as sentences; [] when it
 * matches. `path` may be a template (`/plants/{id}`) or a real path (`/plants/7`), and
 * defaults to the response's own URL. Reads a clone, so the caller may still read the body.
 */
export async function openApiProblems(response: Response, method: string, path?: string): Promise<string[]> {
  return (await check(response, method, path)).problems;
}

async function check(response: Response, method: string, path: string | undefined): Promise<{ problems: string[]; body: unknown }> {
  assert.ok(!response.bodyUsed, 'check the response against OpenAPI before reading its body');
  assert.ok(path !== undefined || response.url !== '', 'pass the path: this response has no URL of its own');
  const pathname = (path ?? new URL(response.url).pathname).split('?')[0] as string;
  const expected = expectationFor(method.toUpperCase(), pathname, response.status);
  if (typeof expected === 'string') return { problems: [expected], body: undefined };
  const copy = response.clone();
  const { problems, body } = await bodyProblems(copy, expected);
  return { problems: [...headerProblems(response, expected), ...problems], body };
}

/** Why `value` is not valid against the document's component schema `name` ([] when it is). */
export function openApiSchemaProblems(name: string, value: unknown): string[] {
  return schemaProblems(validatorAt(pointerOf('components', 'schemas', name)), value, name);
}

/**
 * Fails the test unless `response` matches the document for (method, path, its status);
 * resolves to the parsed body (JSON value, text, or undefined when there is none).
 */
export async function assertMatchesOpenApi(response: Response, method: string, path?: string): Promise<unknown> {
  const { problems, body } = await check(response, method, path);
  if (problems.length > 0) {
    assert.fail(`${method} ${path ?? response.url} → ${response.status} disagrees with the OpenAPI document:\n- ${problems.join('\n- ')}`);
  }
  return body;
}
