/**
 * Malformed requests on the wire for the fuzz: a request that changes nothing in the store,
 * written as raw bytes with one or more faults that fetch and node:http would never send.
 */
import fc from 'fast-check';

export interface WireRequest {
  method: string;
  target: string;
  version: string;
  /** Header lines without their line ending. */
  lines: string[];
  body: string;
  /** The line ending used throughout. */
  eol: string;
}

/** Requests that leave the store as it is: a read, a delete of no plant, a create that conflicts. */
export function templates(token: string): WireRequest[] {
  const base = { version: 'HTTP/1.1', eol: '\r\n', body: '' };
  const auth = `Authorization: Bearer ${token}`;
  return [
    { ...base, method: 'GET', target: '/plants?limit=1', lines: ['Host: plantstore', auth] },
    { ...base, method: 'DELETE', target: '/plants/424242', lines: ['Host: plantstore', auth] },
    {
      ...base,
      method: 'POST',
      target: '/plants',
      lines: ['Host: plantstore', auth, 'Content-Type: application/json', 'Content-Length: 28'],
      body: '{"id":1,"name":"Other fern"}',
    },
  ];
}

type Fault = (request: WireRequest) => WireRequest;

const odd = fc.constantFrom('\u0000', '\u0001', ' ', '\t', '\u007f', '\u00ff', '\u00c3\u0028', '"', '<', '\\', '{', '\u0085', '\r', '\n', '');

const fault: fc.Arbitrary<Fault> = fc.oneof(
  fc.constantFrom('get', 'Get', 'FOO', '', 'G ET', 'GET\u0000', 'CONNECT', 'PRI', 'M-SEARCH', 'GE\u00c9T').map((method): Fault => (r) => ({ ...r, method })),
  fc.tuple(fc.nat(), odd).map(([at, c]): Fault => (r) => ({ ...r, target: r.target.slice(0, 1 + (at % r.target.length)) + c + r.target.slice(1 + (at % r.target.length)) })),
  fc.constantFrom('plants', '*', '//plants', 'http://[::1/plants', 'http://x', '/plants#frag', '/p%lants', '/%00').map((target): Fault => (r) => ({ ...r, target })),
  fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/9.9', 'HTTP/1', 'http/1.1', 'HTTP/1.1 ', '', 'HTTPS/1.1').map((version): Fault => (r) => ({ ...r, version })),
  fc.constantFrom('\n', '\r', '\n\r').map((eol): Fault => (r) => ({ ...r, eol })),
  fc.constantFrom(
    'Bad Header: x',
    'NoColon',
    ': empty name',
    'X-Nul: a\u0000b',
    'X-Cr: a\rb',
    ' folded: continuation',
    '\tfold',
    'Content-Length: 5',
    'Content-Length: -1',
    'Content-Length: 1e3',
    'Content-Length: 99999999999999999999',
    'Transfer-Encoding: chunked',
    'Transfer-Encoding: gzip',
    'Transfer-Encoding: chunked, identity',
    'Host: second',
    'Expect: 100-continue',
    'Expect: something-else',
    'Upgrade: h2c',
    'Connection: Upgrade, HTTP2-Settings',
    `X-Big: ${'b'.repeat(17_000)}`,
    'X-Latin: caf\u00e9',
    'Authorization: Basic Zm9vOmJhcg==',
  ).map((line): Fault => (r) => ({ ...r, lines: [...r.lines, line] })),
  fc.nat().map((at): Fault => (r) => ({ ...r, lines: r.lines.filter((_, i) => i !== at % r.lines.length) })),
  fc.constantFrom('0\r\n\r\n', 'zz\r\n\r\n', '{"id":1', '\u0000\u0000').map((tail): Fault => (r) => ({ ...r, body: r.body + tail })),
);

/** One to three faults applied to one of the templates. */
export function wireRequest(token: string): fc.Arbitrary<WireRequest> {
  return fc
    .tuple(fc.constantFrom(...templates(token)), fc.array(fault, { minLength: 1, maxLength: 3 }))
    .map(([template, faults]) => faults.reduce((request, apply) => apply(request), template));
}

export function wireBytes(request: WireRequest): Buffer {
  const head = [`${request.method} ${request.target} ${request.version}`, ...request.lines, 'Connection: close', '', ''].join(request.eol);
  return Buffer.from(head + request.body, 'latin1');
}

export interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/**
 * The first final answer in the bytes a server sent (after any 1xx), framed by Content-Length
 * or chunked; undefined when none is complete.
 */
export function firstAnswer(text: string): RawAnswer | undefined {
  let bytes = text;
  while (/^HTTP\/1\.1 1\d\d /.test(bytes)) bytes = bytes.slice(bytes.indexOf('\r\n\r\n') + 4);
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = bytes.slice(0, end).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(statusLine);
  if (status === null) return undefined;
  const headers = new Map<string, string>();
  for (const line of lines) headers.set(line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim());
  let body = bytes.slice(end + 4);
  const length = headers.get('content-length');
  if (length !== undefined) body = body.slice(0, Number(length));
  else if (headers.get('transfer-encoding') === 'chunked') body = dechunk(body);
  return { status: Number(status[1]), headers, body };
}

function dechunk(text: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (lineEnd === -1 || !(size > 0)) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
