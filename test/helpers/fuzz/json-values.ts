/**
 * Generated JSON values for the fuzz, each with its source text and what it means, so the model
 * can tell what the server must answer without parsing the text again.
 */
import fc from 'fast-check';

/** What a generated JSON value is: a string (decoded), an integer literal, or anything else. */
export type Meaning =
  | { type: 'string'; value: string }
  | { type: 'integer'; value: bigint }
  | { type: 'other' };

export interface GeneratedValue {
  /** The JSON text as sent. */
  text: string;
  meaning: Meaning;
  /** Containers nested in this value (0 for a scalar). */
  depth: number;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Every character as a \uXXXX escape: decodes to the same string. */
function escapedEverywhere(value: string): string {
  let text = '"';
  for (let i = 0; i < value.length; i++) text += `\\u${value.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return `${text}"`;
}

/** A JSON string for `value`, spelt plainly or fully escaped. */
export function jsonString(value: string): fc.Arbitrary<GeneratedValue> {
  return fc.constantFrom(JSON.stringify(value), escapedEverywhere(value)).map((text) => ({ text, meaning: { type: 'string', value }, depth: 0 }));
}

/** Strings a person might send, and strings that break the field rules. */
export const interestingText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('Fern', 'Monstera deliciosa', 'indoor', 'ünïcödé', '🌵', 'a', ' Fern', 'Fern ', '\u00a0x'),
  fc.constantFrom('', ' ', '\u3000', '\u2003\u00a0', '\u0000', 'a\u0000b', '\u001f', '\u007f', 'tab\there', 'line\nbreak'),
  fc.constantFrom('\ud800', 'x\udc00', '\udbff\udfff', '\u200b', '\u202e', '\ufeff'),
  fc.constantFrom('n'.repeat(64), 't'.repeat(65), 'n'.repeat(256), 'n'.repeat(257), '🌵'.repeat(256), '🌵'.repeat(257)),
  fc.string({ unit: 'binary', minLength: 0, maxLength: 12 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
);

/** Mostly names and tags that follow the rules, so that creates and conflicts happen. */
export const likelyText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom('Fern', 'Moss', 'Monstera deliciosa', '🌵', 'ünïcödé', 'indoor'), weight: 3 },
  { arbitrary: interestingText, weight: 1 },
);

/** Integer literals that fit int64, at the edges and beyond; a few small ones often, so that ids collide. */
const idLiteral: fc.Arbitrary<GeneratedValue> = fc.oneof(
  fc.constantFrom(0n, 1n, 7n).map((value) => ({ text: value.toString(), meaning: { type: 'integer' as const, value }, depth: 0 })),
  fc.constantFrom(0n, 1n, -1n, 7n, 2n ** 53n + 1n, INT64_MAX, INT64_MIN).map((value) => ({ text: value.toString(), meaning: { type: 'integer' as const, value }, depth: 0 })),
  fc.bigInt({ min: -5n, max: 20n }).map((value) => ({ text: value.toString(), meaning: { type: 'integer' as const, value }, depth: 0 })),
  fc.constant({ text: '-0', meaning: { type: 'integer' as const, value: 0n }, depth: 0 }),
);

/** Numbers that are not an int64 integer literal: out of range, huge, fractions, exponents. */
const notAnId: fc.Arbitrary<GeneratedValue> = fc
  .oneof(
    fc.constantFrom('9223372036854775808', '-9223372036854775809', '1'.repeat(400), `-${'9'.repeat(5000)}`, '1.0', '1e3', '1E3', '-0.0', '1e400', '7.5'),
    fc.constantFrom('"7"', 'null', 'true', '[]', '{}', '[7]', '{"id":7}'),
  )
  .map((text) => ({ text, meaning: { type: 'other' as const }, depth: text.startsWith('[') || text.startsWith('{') ? 1 : 0 }));

/** An id value: mostly valid, sometimes not. */
export const idValue: fc.Arbitrary<GeneratedValue> = fc.oneof({ arbitrary: idLiteral, weight: 8 }, { arbitrary: notAnId, weight: 1 });

/** Arrays and objects nested `levels` deep around a scalar. */
export function nested(levels: number, kind: 'array' | 'object'): GeneratedValue {
  const [open, close] = kind === 'array' ? ['[', ']'] : ['{"a":', '}'];
  return { text: open.repeat(levels) + '1' + close.repeat(levels), meaning: { type: 'other' }, depth: levels };
}

/** Any JSON value for an ignored field: scalars, deep nesting, prototype-polluting objects. */
export const anyValue: fc.Arbitrary<GeneratedValue> = fc.oneof(
  interestingText.chain(jsonString),
  idValue,
  fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '{"a":1,"a":2}', '[1,"two",null,{}]').map((text) => ({
    text,
    meaning: { type: 'other' as const },
    depth: text.startsWith('[') ? 2 : text.includes(':{"prototype') ? 3 : text.includes('{"admin') ? 2 : 1,
  })),
  fc.tuple(fc.integer({ min: 1, max: 70 }), fc.constantFrom<'array' | 'object'>('array', 'object')).map(([levels, kind]) => nested(levels, kind)),
  fc.constantFrom(10_000, 2_000).map((levels) => nested(levels, 'array')),
);
