/** The OpenAPI document itself: valid 3.1, the seed's schemas, every status, header and decision. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiDocument } from '../../src/http/openapi.js';
import { parseItemFields } from '../../src/http/plant-query.js';
import { WHITE_SPACE_CLASS } from '../../src/http/openapi/schemas.js';
import type { OperationObject, ParameterObject, Reference, ResponseObject } from '../../src/http/openapi/types.js';
import { INT32_MAX } from '../../src/plants/int64.js';
import { NAME_MAX_LENGTH, PlantValidationError, TAG_MAX_LENGTH, toNewPlant } from '../../src/plants/plant.js';
import { parseJson } from '../../src/util/strict-json.js';
import { openApiProblems, openApiSchemaProblems } from '../helpers/openapi-check.js';

const doc = openApiDocument();

function operation(path: string, method: 'get' | 'post' | 'delete'): OperationObject {
  const found = doc.paths[path]?.[method];
  assert.ok(found, `${method.toUpperCase()} ${path} is documented`);
  return found;
}

function deref<T>(value: T | Reference): T {
  if (typeof value !== 'object' || value === null || !('$ref' in value)) return value as T;
  let node: unknown = doc;
  for (const part of value.$ref.split('/').slice(1)) node = (node as Record<string, unknown>)[part];
  return node as T;
}

function allResponses(): [string, ResponseObject][] {
  const result: [string, ResponseObject][] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'delete'] as const) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
        result.push([`${method.toUpperCase()} ${path} ${status}`, deref(response)]);
      }
    }
  }
  for (const [name, response] of Object.entries(doc.components.responses)) result.push([`components/responses/${name}`, response]);
  return result;
}

/** The status an Error response pins its `error` to, or undefined for other responses. */
function errorStatusOf(response: ResponseObject): number | undefined {
  const pinned = response.content?.['application/json']?.schema?.allOf as { properties?: { error?: { const?: number } } }[] | undefined;
  return pinned?.[1]?.properties?.error?.const;
}

describe('the OpenAPI document', () => {
  test('is valid OpenAPI 3.1 for a maintained validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
  });

  test('keeps openapi 3.1.0 and info.version 1.0.0', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
  });

  test("keeps the seed's Plant: name required, tag optional, no id and nothing else", () => {
    const plant = doc.components.schemas.Plant;
    assert.equal(plant?.type, 'object');
    assert.deepEqual(plant?.required, ['name']);
    assert.deepEqual(Object.keys(plant?.properties as object), ['name', 'tag']);
    assert.equal(plant?.additionalProperties, false);
    assert.deepEqual(openApiSchemaProblems('Plant', { name: 'Fern', tag: 'fern' }), []);
    assert.notDeepEqual(openApiSchemaProblems('Plant', { id: 7, name: 'Fern' }), []);
  });

  test("keeps the seed's NewPlant: id int64 and name required, tag optional", () => {
    const newPlant = doc.components.schemas.NewPlant;
    const properties = newPlant?.properties as Record<string, Record<string, unknown>>;
    assert.equal(newPlant?.type, 'object');
    assert.deepEqual([...(newPlant?.required as string[])].sort(), ['id', 'name']);
    assert.equal(properties.id?.type, 'integer');
    assert.equal(properties.id?.format, 'int64');
    assert.match(String(properties.id?.description), /exact/);
    assert.match(String(properties.id?.description), /integer literal/);
    assert.equal(properties.name?.type, 'string');
    assert.equal(properties.tag?.type, 'string');
  });

  test("keeps the seed's Error: error int32 (the HTTP status) and message, both required", () => {
    const error = doc.components.schemas.Error;
    const properties = error?.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual([...(error?.required as string[])].sort(), ['error', 'message']);
    assert.equal(properties.error?.type, 'integer');
    assert.equal(properties.error?.format, 'int32');
    assert.equal(properties.message?.type, 'string');
    assert.ok((properties.error?.enum as number[]).includes(429), '429 when RATE_LIMIT is on');
  });

  test("keeps the seed's bearerAuth scheme (http, bearer) on every /plants operation with its scope", () => {
    assert.equal(doc.components.securitySchemes.bearerAuth?.type, 'http');
    assert.equal(doc.components.securitySchemes.bearerAuth?.scheme, 'bearer');
    assert.deepEqual(operation('/plants', 'post').security, [{ bearerAuth: ['plants:write'] }]);
    assert.deepEqual(operation('/plants', 'get').security, [{ bearerAuth: ['plants:read'] }]);
    assert.deepEqual(operation('/plants/{id}', 'delete').security, [{ bearerAuth: ['plants:write'] }]);
    assert.match(operation('/plants', 'post').description, /plants:write/);
    assert.match(operation('/plants', 'get').description, /plants:read/);
  });

  test('public operations need no token', () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/docs/{asset}']) {
      assert.deepEqual(operation(path, 'get').security, [], path);
    }
  });

  test('field limits come from the plant rules', () => {
    const newPlant = doc.components.schemas.NewPlant?.properties as Record<string, Record<string, unknown>>;
    assert.equal(newPlant.name?.minLength, 1);
    assert.equal(newPlant.name?.maxLength, NAME_MAX_LENGTH);
    assert.equal(newPlant.tag?.minLength, 1);
    assert.equal(newPlant.tag?.maxLength, TAG_MAX_LENGTH);
  });

  test("the pattern's white space is exactly Unicode White_Space outside the control characters", () => {
    const listed = new RegExp(`^[${WHITE_SPACE_CLASS}]$`, 'u');
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const char = String.fromCodePoint(cp);
      const expected = /^\p{White_Space}$/u.test(char) && !/[\u0000-\u001f\u007f]/.test(char);
      assert.equal(listed.test(char), expected, `U+${cp.toString(16).toUpperCase()}`);
    }
  });

  test('the NewPlant schema accepts and rejects names and tags as the service does', () => {
    const texts = ['Fern', ' Fern ', ' ', '\u00a0', '\u3000', '\u0085', '\ufeff', 'a\u0000b', 'a\u007f', '\t', 'a\tb', '',
      'x'.repeat(TAG_MAX_LENGTH), 'x'.repeat(TAG_MAX_LENGTH + 1), 'x'.repeat(NAME_MAX_LENGTH), 'x'.repeat(NAME_MAX_LENGTH + 1),
      '🌱'.repeat(NAME_MAX_LENGTH), '🌱'.repeat(NAME_MAX_LENGTH + 1), '🌱'.repeat(TAG_MAX_LENGTH), '🌱'.repeat(TAG_MAX_LENGTH + 1)];
    for (const text of texts) {
      for (const body of [{ id: 1, name: text }, { id: 1, name: 'Fern', tag: text }]) {
        let accepted = true;
        try {
          toNewPlant(parseJson(JSON.stringify(body)));
        } catch (error) {
          if (!(error instanceof PlantValidationError)) throw error;
          accepted = false;
        }
        assert.equal(openApiSchemaProblems('NewPlant', body).length === 0, accepted, JSON.stringify(body));
      }
    }
  });

  test('each /plants operation documents every status of the contract, 429 included (RATE_LIMIT)', () => {
    const statuses = (op: OperationObject) => Object.keys(op.responses).map(Number);
    assert.deepEqual(statuses(operation('/plants', 'post')), [200, 400, 401, 403, 409, 413, 415, 429, 500, 503]);
    assert.deepEqual(statuses(operation('/plants', 'get')), [200, 400, 401, 403, 429, 500, 503]);
    assert.deepEqual(statuses(operation('/plants/{id}', 'delete')), [204, 400, 401, 403, 404, 429, 500, 503]);
    assert.equal(doc.components.responses.MethodNotAllowed?.content?.['application/json'] !== undefined, true);
  });

  test('headers: X-Request-Id everywhere, Location, Link, WWW-Authenticate, Allow, Retry-After where they occur', () => {
    for (const [where, response] of allResponses()) {
      assert.ok(response.headers?.['X-Request-Id'], `${where} documents X-Request-Id`);
      const status = errorStatusOf(response);
      if (status === 401 || status === 403) assert.ok(response.headers['WWW-Authenticate'], where);
      if (status === 503 || status === 429) assert.ok(response.headers['Retry-After'], where);
    }
    assert.ok(deref(operation('/plants', 'post').responses['200'] as ResponseObject).headers?.Location);
    assert.ok(deref(operation('/plants', 'get').responses['200'] as ResponseObject).headers?.Link);
    assert.ok(doc.components.responses.MethodNotAllowed?.headers?.Allow);
    assert.ok(doc.components.responses.Unauthorized?.headers?.['WWW-Authenticate']);
    assert.ok(doc.components.responses.ForbiddenRead?.headers?.['WWW-Authenticate']);
    assert.ok(doc.components.responses.ForbiddenWrite?.headers?.['WWW-Authenticate']);
  });

  test('the /plants answers that come after the rate limit declare its headers; /metrics may answer 503', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/plants')) continue;
      for (const method of ['get', 'post', 'delete'] as const) {
        for (const [status, response] of Object.entries(item[method]?.responses ?? {})) {
          if (['401', '403', '500', '503'].includes(status)) continue; // before the limit, or a failure
          const headers = deref(response).headers ?? {};
          assert.ok(headers.RateLimit && headers['RateLimit-Policy'], `${method.toUpperCase()} ${path} ${status}`);
        }
      }
    }
    assert.ok(doc.paths['/metrics']?.get?.responses['503'], 'the figures of --workers can fail to arrive');
  });

  test('the tag parameter takes any text but the empty one (a tag no plant can have matches none); the Error schema knows the statuses of refused HTTP', () => {
    const tagParameter = doc.components.parameters.tag?.schema as { minLength?: number; pattern?: string; maxLength?: number };
    assert.deepEqual(tagParameter, { type: 'string', minLength: 1 });
    for (const status of [408, 417, 431]) {
      assert.deepEqual(openApiSchemaProblems('Error', { error: status, message: 'x' }), [], String(status));
    }
  });

  test('the fields pattern admits exactly the values the server takes', () => {
    const pattern = new RegExp((doc.components.parameters.fields?.schema as { pattern: string }).pattern, 'u');
    for (const value of ['id', 'name', 'tag', 'id,name', 'tag,id', 'name,tag,id', '', 'id,id', 'name,tag,name', 'ids', 'id,', 'ID', 'id,name,tag,id']) {
      let taken = true;
      try {
        parseItemFields(`fields=${value}`);
      } catch {
        taken = false;
      }
      assert.equal(pattern.test(value), taken, value);
    }
  });

  test('parameters: limit int32 0…2147483647, after int64, path id int64', () => {
    const params = (op: OperationObject) => (op.parameters ?? []).map((p) => deref<ParameterObject>(p));
    const list = params(operation('/plants', 'get'));
    const limit = list.find((p) => p.name === 'limit');
    const after = list.find((p) => p.name === 'after');
    const id = params(operation('/plants/{id}', 'delete')).find((p) => p.name === 'id');
    assert.deepEqual(limit?.schema, { type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX });
    assert.deepEqual(after?.schema, { type: 'integer', format: 'int64' });
    assert.equal(id?.in, 'path');
    assert.equal(id?.required, true);
    assert.deepEqual(id?.schema, { type: 'integer', format: 'int64' });
  });

  test('states the decisions the seed leaves open', () => {
    const text = [doc.info.description, operation('/plants', 'post').description, operation('/plants', 'get').description].join('\n');
    for (const decision of [/id ascending/, /streamed/, /unique per owner/i, /retr(y|ied)[^.]*safe/i, /rate limiting is off unless/i]) {
      assert.match(text, decision);
    }
  });
});

describe('the OpenAPI check itself', () => {
  const headers = { 'content-type': 'application/json', 'x-request-id': 'abc' };

  test('accepts a response that matches', async () => {
    const response = new Response('{"name":"Fern"}', { status: 200, headers: { ...headers, location: '/plants/7' } });
    assert.deepEqual(await openApiProblems(response, 'POST', '/plants'), []);
  });

  test('catches an extra field, a missing header, a wrong media type and an undocumented status', async () => {
    const leak = new Response('{"id":7,"name":"Fern"}', { status: 200, headers: { ...headers, location: '/plants/7' } });
    assert.match((await openApiProblems(leak, 'POST', '/plants')).join(), /additional/);
    const noLocation = new Response('{"name":"Fern"}', { status: 200, headers });
    assert.match((await openApiProblems(noLocation, 'POST', '/plants')).join(), /Location/);
    const text = new Response('oops', { status: 400, headers: { 'content-type': 'text/plain', 'x-request-id': 'abc' } });
    assert.match((await openApiProblems(text, 'GET', '/plants')).join(), /Content-Type/);
    const teapot = new Response('{"error":418,"message":"no"}', { status: 418, headers });
    assert.match((await openApiProblems(teapot, 'GET', '/plants')).join(), /not documented/);
  });

  test("catches an Error whose error is not the response's status", async () => {
    const response = new Response('{"error":400,"message":"Wrong."}', { status: 409, headers });
    assert.match((await openApiProblems(response, 'POST', '/plants')).join(), /constant/);
  });

  test('holds unknown paths to 404 and unlisted methods to 405 with the right Allow', async () => {
    const wrongAllow = new Response('{"error":405,"message":"No."}', { status: 405, headers: { ...headers, allow: 'GET' } });
    assert.match((await openApiProblems(wrongAllow, 'PUT', '/plants')).join(), /Allow/);
    const found = new Response('{"name":"x"}', { status: 200, headers });
    assert.match((await openApiProblems(found, 'GET', '/nowhere')).join(), /only 404/);
  });
});
