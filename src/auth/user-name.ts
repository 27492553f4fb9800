/**
 * User names (the owner of a token's plants, from `token create --user` or a JWT's owner claim)
 * as a person can read them: NFC-normalised, so one name has one spelling; no white space at
 * either end and no invisible character anywhere, so `admin` and ` admin` or `ad\u200bmin`
 * cannot be two users that `token list` shows alike.
 */

const USER_NAME_MAX_LENGTH = 256;

/** Why a user name is refused; the message is one sentence about the name. */
export class UserNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserNameError';
  }
}

const EDGE_WHITE_SPACE = /^\p{White_Space}|\p{White_Space}$/u;
/**
 * Controls, format characters (zero-width, bidi controls, BOM, soft hyphen), line and
 * paragraph separators, and the rest of Unicode's default-ignorable characters, which render
 * as nothing; inner white space other than a plain space is refused too.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{White_Space}/u;
/** A text or emoji presentation selector right after a pictograph (❤️) changes how it looks; it hides nothing. */
const PRESENTATION_SELECTOR = /(?<=\p{Extended_Pictographic})[\uFE0E\uFE0F]/gu;

function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The user name as stored: NFC. Throws UserNameError saying what is wrong with it. */
export function normalizeUserName(raw: string): string {
  if (!raw.isWellFormed()) throw new UserNameError('it contains an unpaired surrogate, which is no character');
  const name = raw.normalize('NFC');
  const length = [...name].length;
  if (length < 1 || length > USER_NAME_MAX_LENGTH) throw new UserNameError(`it must be 1 to ${USER_NAME_MAX_LENGTH} characters long`);
  if (EDGE_WHITE_SPACE.test(name)) throw new UserNameError('it starts or ends with white space');
  const invisible = INVISIBLE.exec(name.replace(PRESENTATION_SELECTOR, ''));
  if (invisible !== null) throw new UserNameError(`it contains ${codePoint(invisible[0])}, an invisible or control character`);
  return name;
}

/**
 * A stored user name as `token list` shows it: as it is when it follows the rules, otherwise
 * quoted with every invisible character escaped, so names stored before these rules (` admin`)
 * cannot pass for another.
 */
export function shownUserName(name: string): string {
  try {
    if (normalizeUserName(name) === name) return name;
  } catch {
    // shown escaped below
  }
  let shown = '';
  for (const character of name) {
    const escaped = !character.isWellFormed() || INVISIBLE.test(character) || character === '"' || character === '\\';
    shown += escaped ? `\\u{${(character.codePointAt(0) ?? 0).toString(16)}}` : character;
  }
  return `"${shown}"`;
}
