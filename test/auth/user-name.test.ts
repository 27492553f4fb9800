/** User names as a person reads them: NFC, no white space at the ends, nothing invisible. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UserNameError, normalizeUserName, shownUserName } from '../../src/auth/user-name.js';

describe('normalizeUserName', () => {
  test('keeps ordinary names, inner spaces, non-Latin scripts and emoji', () => {
    for (const name of ['admin', 'Ada Lovelace', 'mısc', '山田', 'org_42', 'a.b@example.com', '🌵', '❤️ plants', 'x'.repeat(256)]) {
      assert.equal(normalizeUserName(name), name);
    }
  });

  test('stores the NFC form: a decomposed é becomes the composed one', () => {
    assert.equal(normalizeUserName('e\u0301'), '\u00e9');
    assert.equal(normalizeUserName('Zoe\u0308'), 'Zo\u00eb');
    assert.equal(normalizeUserName('\u212b'), '\u00c5', 'the Ångström sign is the letter Å');
  });

  const refused: [string, string, RegExp][] = [
    ['leading space', ' admin', /starts or ends with white space/],
    ['trailing space', 'admin ', /starts or ends with white space/],
    ['trailing no-break space', 'admin\u00a0', /starts or ends with white space/],
    ['leading ideographic space', '\u3000admin', /starts or ends with white space/],
    ['zero-width space', 'ad\u200bmin', /U\+200B/],
    ['zero-width joiner', 'ad\u200dmin', /U\+200D/],
    ['right-to-left override', 'admin\u202egpj', /U\+202E/],
    ['left-to-right isolate', '\u2066admin', /U\+2066/],
    ['byte order mark', '\ufeffadmin', /U\+FEFF/],
    ['soft hyphen', 'ad\u00admin', /U\+00AD/],
    ['Hangul filler', 'ad\u3164min', /U\+3164/],
    ['tab inside', 'ad\tmin', /U\+0009/],
    ['NUL', 'ad\u0000min', /U\+0000/],
    ['line separator', 'ad\u2028min', /U\+2028/],
    ['inner no-break space', 'ad\u00a0min', /U\+00A0/],
    ['variation selector after a letter', 'admin\ufe0f', /U\+FE0F/],
    ['empty', '', /1 to 256 characters/],
    ['too long', 'x'.repeat(257), /1 to 256 characters/],
    ['lone surrogate', 'ad\ud800min', /unpaired surrogate/],
  ];
  for (const [what, name, message] of refused) {
    test(`refuses a name with a ${what}`, () => {
      assert.throws(() => normalizeUserName(name), (error: unknown) => error instanceof UserNameError && message.test(error.message));
    });
  }
});

describe('shownUserName (token list)', () => {
  test('a name that follows the rules is shown as it is', () => {
    assert.equal(shownUserName('Ada Lovelace'), 'Ada Lovelace');
  });

  test('a name stored before the rules is quoted, its invisible characters escaped', () => {
    assert.equal(shownUserName(' admin'), '" admin"');
    assert.equal(shownUserName('ad\u200bmin'), '"ad\\u{200b}min"');
    assert.equal(shownUserName('admin\t'), '"admin\\u{9}"');
    assert.equal(shownUserName('e\u0301'), '"e\u0301"', 'not NFC: quoted, so it cannot pass for the composed é');
    assert.equal(shownUserName('a"\ud800'), '"a\\u{22}\\u{d800}"');
  });
});
