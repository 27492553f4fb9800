/** Integer spellings that plantstore accepts in paths, queries and bodies. */

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const INT32_MAX = 2 ** 31 - 1;

const SIGNED_DECIMAL = /^-?[0-9]+$/;

/** ASCII decimal digits with an optional leading '-', in int64 range; otherwise undefined. */
export function parseInt64(text: string): bigint | undefined {
  if (!SIGNED_DECIMAL.test(text)) return undefined;
  const value = BigInt(text);
  return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
}

/** ASCII decimal digits, 0 … 2147483647; otherwise undefined. */
export function parseNonNegativeInt32(text: string): number | undefined {
  // Digit by digit (every query's limit goes through here); leading zeros add nothing.
  if (text.length === 0) return undefined;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
    if (value > INT32_MAX) return undefined;
  }
  return value;
}
