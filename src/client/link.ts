/** The `after` cursor of a `Link: <…>; rel="next"` header (RFC 8288). */
import { parseInt64 } from '../plants/int64.js';
import { PlantStoreResponseError } from './errors.js';

/** A link and its parameters, whose values may be quoted strings holding `,` and `;` (a `title`). */
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*(?:[^;,"]|"(?:[^"\\]|\\.)*")+)*)/g;
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i;

/**
 * The `after` of the link whose rel includes `next`; undefined when there is none. A next link
 * without an `after` this client can read throws: ending the walk there would pass a cut list
 * off as the whole.
 */
export function nextCursor(header: string | null, status: number): bigint | undefined {
  if (header === null) return undefined;
  for (const match of header.matchAll(LINK_VALUE)) {
    const rel = REL.exec(match[2] ?? '');
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (!relations.includes('next')) continue;
    const after = parseInt64(new URL(match[1] ?? '', 'http://link.invalid/').searchParams.get('after') ?? '');
    if (after === undefined) throw new PlantStoreResponseError(status, `The service answered ${status} with a next link without an int64 after: ${match[0]}`);
    return after;
  }
  return undefined;
}
