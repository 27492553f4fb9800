/**
 * Generated requests for the fuzz: method, path, query, credentials, headers and body, each
 * described by what it is (so the model can say what the answer must be) and by how it is sent.
 */
import fc from 'fast-check';
import { anyValue, idValue, interestingText, jsonString, likelyText, type GeneratedValue } from './json-values.js';

/** Which credentials a request carries; the fuzz run holds a token for each. */
export type Credential = 'writer' | 'reader' | 'other-owner' | 'revoked' | 'none' | 'malformed';

/** One member of a generated object body: the key as decoded, and as sent. */
export interface Member {
  key: string;
  keyText: string;
  value: GeneratedValue;
}

export type BodyShape = { kind: 'object'; members: Member[] } | { kind: 'not-an-object'; text: string };

/** How the body's bytes are spoilt after it is written, if at all. */
export type Damage = 'none' | 'invalid-utf8' | 'truncated' | 'trailing-garbage';

export interface FuzzRequest {
  method: string;
  /** The path as sent, without the query. */
  path: string;
  /** The query as sent, without `?`; undefined for none. */
  query: string | undefined;
  credential: Credential;
  /** How the scheme is spelt (Bearer, bearer, BEARER …). */
  scheme: string;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** Extra headers, sent as latin1 bytes. */
  headers: [string, string][];
  body: { shape: BodyShape; damage: Damage; damageAt: number } | undefined;
}

const ids = ['0', '1', '-1', '7', '9007199254740993', '9223372036854775807', '-9223372036854775808', '007', '-0'];
const badIds = ['', '9223372036854775808', '+7', '%207', '7%20', '1e2', '0x10', '%D9%A3', 'abc', '%', '%zz', '1.5', `${'9'.repeat(300)}`];
const path: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant('/plants'), weight: 6 },
  { arbitrary: fc.constantFrom(...ids, '%37', '%2D1').map((id) => `/plants/${id}`), weight: 5 },
  { arbitrary: fc.constantFrom(...badIds).map((id) => `/plants/${id}`), weight: 1 },
  {
    arbitrary: fc.constantFrom('/', '/plants/', '/plants/7/', '/plants//7', '/PLANTS', '/plants/7/leaves', '/plants%2F7', '/%00', '/plants/%00', '/pl\u00e4nts', '/plants/\u00ff', '/..%2Fplants'),
    weight: 1,
  },
);

const queryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '1', '2', '5', '2147483647', '2147483648', '-1', '007', '', '1.5', '+1', '%2B1', '1e2', '9223372036854775807', '-9223372036854775808'),
  fc.constantFrom('id', 'name', 'tag', 'id,name,tag', 'tag,id', 'id,id', 'name,', 'ID', '%00', 'a%00b', '%ED%A0%80', '%FF', '%zz', '%', 'indoor', 'outdoor', '%20%20'),
  interestingText.filter((text) => text.isWellFormed()).map(encodeURIComponent),
);
const queryName = fc.constantFrom('limit', 'after', 'tag', 'fields', 'limit', 'tag', 'LIMIT', 'foo', 'limit[]', '', '__proto__', 'constructor');
const query: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 8 },
  { arbitrary: fc.array(fc.tuple(queryName, queryValue), { minLength: 1, maxLength: 3 }).map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('&')), weight: 4 },
  { arbitrary: fc.constantFrom('', '&', 'limit', '=', '&&limit=1&&', 'limit=1&', 'limit=1;after=2'), weight: 1 },
);

const method = fc.oneof(
  { arbitrary: fc.constantFrom('GET', 'POST', 'DELETE'), weight: 8 },
  { arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'PUT', 'PATCH', 'PROPFIND', 'PURGE', 'get', 'Post', 'FOO'), weight: 2 },
);

const credential = fc.oneof(
  { arbitrary: fc.constant<Credential>('writer'), weight: 6 },
  { arbitrary: fc.constantFrom<Credential>('reader', 'other-owner'), weight: 3 },
  { arbitrary: fc.constantFrom<Credential>('revoked', 'none', 'malformed'), weight: 1 },
);

const fieldValue = (key: string): fc.Arbitrary<GeneratedValue> => {
  if (key === 'id') return idValue;
  if (key === 'name' || key === 'tag') return fc.oneof({ arbitrary: interestingText.chain(jsonString), weight: 4 }, { arbitrary: anyValue, weight: 1 });
  return anyValue;
};

/** A member with `key`, sent plainly or with an escape that decodes to the same key. */
const memberWith = (key: string): fc.Arbitrary<Member> =>
  fc.record({
    key: fc.constant(key),
    keyText: key === '' ? fc.constant('""') : fc.constantFrom(JSON.stringify(key), `"\\u${key.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(key.slice(1)).slice(1, -1)}"`),
    value: fieldValue(key),
  });

/** Members a plant ignores (prototype-polluting keys among them), or now and then a second id, name or tag. */
const member: fc.Arbitrary<Member> = fc.oneof(
  { arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'pad', 'Name', 'ID', '', 'n\u0000').chain(memberWith), weight: 6 },
  { arbitrary: fc.constantFrom('id', 'name', 'tag').chain(memberWith), weight: 1 },
);

/** Mostly a well-formed plant (id, name, maybe tag) with extra members; sometimes anything. */
const objectBody: fc.Arbitrary<BodyShape> = fc
  .tuple(idValue, likelyText.chain(jsonString), fc.option(likelyText.chain(jsonString)), fc.array(member, { maxLength: 4 }), fc.boolean())
  .map(([id, name, tag, extra, plantFirst]) => {
    const plant: Member[] = [
      { key: 'id', keyText: '"id"', value: id },
      { key: 'name', keyText: '"name"', value: name },
      ...(tag === null ? [] : [{ key: 'tag', keyText: '"tag"', value: tag }]),
    ];
    return { kind: 'object', members: plantFirst ? [...plant, ...extra] : [...extra, ...plant] };
  });

const body = fc.record({
  shape: fc.oneof(
    { arbitrary: objectBody, weight: 12 },
    { arbitrary: fc.array(member, { maxLength: 4 }).map((members): BodyShape => ({ kind: 'object', members })), weight: 1 },
    { arbitrary: fc.constantFrom('', ' ', '[]', '[{"id":1,"name":"a"}]', '"x"', '7', 'null', '{', 'nul', '\ufeff{}').map((text): BodyShape => ({ kind: 'not-an-object', text })), weight: 1 },
  ),
  damage: fc.oneof({ arbitrary: fc.constant<Damage>('none'), weight: 20 }, { arbitrary: fc.constantFrom<Damage>('invalid-utf8', 'truncated', 'trailing-garbage'), weight: 2 }),
  damageAt: fc.nat(),
});

const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 8 },
  { arbitrary: fc.constantFrom(undefined, 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; charset=latin1', 'text/plain', 'application/merge-patch+json', 'application/jsonx', ''), weight: 2 },
);

const headerValue = fc.oneof(
  fc.constantFrom('', 'x', '\u00ff\u00fe', '\u00c3\u0028', 'a'.repeat(2000), '__proto__', 'caf\u00e9'),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength: 40 }),
);
const headers = fc.array(
  fc.tuple(fc.constantFrom('x-request-id', 'x-fuzz', 'accept', 'accept-encoding', 'origin', 'x-forwarded-for', '__proto__', 'constructor', 'if-none-match'), headerValue),
  { maxLength: 3 },
);

/** The operations of the contract most of the time, any method on any path otherwise. */
const methodAndPath: fc.Arbitrary<{ method: string; path: string }> = fc.oneof(
  { arbitrary: fc.record({ method: fc.constantFrom('POST', 'GET'), path: fc.constant('/plants') }), weight: 3 },
  { arbitrary: fc.record({ method: fc.constantFrom('GET', 'DELETE'), path: fc.constantFrom(...ids, '0', '1', '7').map((id) => `/plants/${id}`) }), weight: 2 },
  { arbitrary: fc.record({ method, path }), weight: 2 },
);

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  target: methodAndPath,
  query,
  credential,
  scheme: fc.constantFrom('Bearer', 'Bearer', 'bearer', 'BEARER'),
  contentType,
  contentEncoding: fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: fc.constantFrom('gzip', 'identity', 'br'), weight: 1 }),
  headers,
  body: fc.option(body, { freq: 12 }).map((value) => value ?? undefined),
}).map(({ target, ...rest }) => ({ ...target, ...rest }));

/** The body's JSON text before any damage. */
export function bodyText(shape: BodyShape): string {
  if (shape.kind === 'not-an-object') return shape.text;
  return `{${shape.members.map((m) => `${m.keyText}:${m.value.text}`).join(',')}}`;
}

/** The bytes sent: the text as UTF-8, then damaged as told. Damage always makes the body unreadable. */
export function bodyBytes(spec: NonNullable<FuzzRequest['body']>): Buffer {
  const bytes = Buffer.from(bodyText(spec.shape), 'utf8');
  const at = bytes.length === 0 ? 0 : spec.damageAt % bytes.length;
  switch (spec.damage) {
    case 'none':
      return bytes;
    case 'invalid-utf8':
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xed, 0xa0, 0x80, 0xff, 0xc0, 0x80]).subarray(spec.damageAt % 3, 3 + (spec.damageAt % 3)), bytes.subarray(at)]);
    case 'truncated':
      return bytes.subarray(0, at);
    case 'trailing-garbage':
      return Buffer.concat([bytes, Buffer.from('x')]);
  }
}
