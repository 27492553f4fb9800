/** The `after` cursor of a `Link: <…>; rel="next"` header (RFC 8288). */
import { parseInt64 } from '../plants/int64.js';

/** A link and its parameters, whose values may be quoted strings holding `,` and `;` (a `title`). */
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*(?:[^;,"]|"(?:[^"\\]|\\.)*")+)*)/g;
const REL = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i;

/** The `after` of the link whose rel includes `next`; undefined when there is none. */
export function nextCursor(header: string | null): bigint | undefined {
  if (header === null) return undefined;
  for (const match of header.matchAll(LINK_VALUE)) {
    const rel = REL.exec(match[2] ?? '');
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (!relations.includes('next')) continue;
    const after = new URL(match[1] ?? '', 'http://link.invalid/').searchParams.get('after');
    return after === null ? undefined : parseInt64(after);
  }
  return undefined;
}
