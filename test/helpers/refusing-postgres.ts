/**
 * A TCP server that speaks just enough of PostgreSQL's wire protocol to refuse every login
 * with a given SQLSTATE, as a real server does for a wrong password: it reads the startup
 * message and answers with an ErrorResponse. For the refusals the local test server, which
 * trusts every local login, cannot produce.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createSecureContext, TLSSocket } from 'node:tls';
import type { TestContext } from 'node:test';

function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat([
    ...[['S', 'FATAL'], ['V', 'FATAL'], ['C', code], ['M', message]].map(([type, value]) => Buffer.from(`${type}${value}\0`)),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/** Starts a server on 127.0.0.1 that treats each connection with `onConnection`, and returns its port; it closes after the test. */
async function fakePostgres(t: TestContext, onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    socket.on('error', () => {});
    onConnection(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** Starts the server and returns its port; it closes after the test. */
export function refusingPostgres(t: TestContext, code: string, message: string): Promise<number> {
  return fakePostgres(t, (socket) => {
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      // The startup message is length-prefixed; answer once it is all here.
      if (received.length >= 4 && received.length >= received.readInt32BE(0)) socket.end(errorResponse(code, message));
    });
  });
}

/**
 * Starts a server that answers a TLS request with no (`N`), as a PostgreSQL without TLS does,
 * and returns its port; it closes after the test.
 */
export function postgresWithoutTls(t: TestContext): Promise<number> {
  return fakePostgres(t, (socket) => socket.once('data', () => socket.end('N')));
}

/** A server that accepts PostgreSQL's TLS request and presents the test certificate, self-signed for localhost and 127.0.0.1. */
export function postgresWithTls(t: TestContext): Promise<number> {
  const fixtures = new URL('../../../test/fixtures/', import.meta.url);
  const secureContext = createSecureContext({ cert: readFileSync(new URL('tls-test-cert.pem', fixtures)), key: readFileSync(new URL('tls-test-key.pem', fixtures)) });
  return fakePostgres(t, (socket) =>
    socket.once('data', () => {
      socket.write('S');
      new TLSSocket(socket, { isServer: true, secureContext }).on('error', () => {});
    }),
  );
}
