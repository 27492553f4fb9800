/** The `after` cursor of a `Link: <…>; rel="next"` header (RFC 8288). */
import { parseInt64 } from '../plants/int64.js';
import { PlantStoreResponseError } from './errors.js';

/** A link and its parameters, whose values may be quoted strings holding `,` and `;` (a `title`). */
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*(?:[^;,"]|"(?:[^"\\]|\\.)*")+)*)/g;
/** One `;`-led parameter, a quoted string taken whole, so that a `;` inside one starts none. */
const PARAMETER = /;((?:[^;"]|"(?:[^"\\]|\\.)*")*)/g;
const REL = /^\s*rel\s*=\s*(?:"([^"]*)"|([^\s"]+))\s*$/i;

/** The relation types of a link's first `rel` parameter (RFC 8288 ignores any later one). */
function relations(parameters: string): string[] {
  for (const [, parameter] of parameters.matchAll(PARAMETER)) {
    const rel = REL.exec(parameter ?? '');
    if (rel !== null) return (rel[1] ?? rel[2] ?? '').toLowerCase().split(/\s+/);
  }
  return [];
}

/**
 * The `after` of the link whose rel includes `next`; undefined when there is none. A next link
 * without an `after` this client can read throws: ending the walk there would pass a cut list
 * off as the whole.
 */
export function nextCursor(header: string | null, status: number): bigint | undefined {
  if (header === null) return undefined;
  for (const match of header.matchAll(LINK_VALUE)) {
    if (!relations(match[2] ?? '').includes('next')) continue;
    const after = parseInt64(new URL(match[1] ?? '', 'http://link.invalid/').searchParams.get('after') ?? '');
    if (after === undefined) throw new PlantStoreResponseError(status, `The service answered ${status} with a next link without an int64 after: ${match[0]}`);
    return after;
  }
  return undefined;
}
