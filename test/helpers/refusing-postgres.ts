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

/** A message from the server: its type byte, its length (which counts itself), its body. */
function serverMessage(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

function errorResponse(code: string, message: string): Buffer {
  const fields = [['S', 'FATAL'], ['V', 'FATAL'], ['C', code], ['M', message]].map(([type, value]) => Buffer.from(`${type}${value}\0`));
  return serverMessage('E', Buffer.concat([...fields, Buffer.from([0])]));
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

/** An authentication request: 'R', its length, the method's number, then its data. */
function authentication(method: number, data = Buffer.alloc(0)): Buffer {
  const methodNumber = Buffer.alloc(4);
  methodNumber.writeInt32BE(method);
  return serverMessage('R', Buffer.concat([methodNumber, data]));
}

/**
 * A server that asks each login for its password, in clear text (as `password` in pg_hba.conf
 * does: it records what the client sends and refuses it as a wrong password, 28P01) or by
 * SCRAM-SHA-256 (as `scram-sha-256` does, the default since PostgreSQL 14: it goes as far as
 * the client's first message and the server's first answer).
 */
export async function postgresAskingPassword(t: TestContext, method: 'cleartext' | 'scram' = 'cleartext'): Promise<{ port: number; passwords: string[] }> {
  const passwords: string[] = [];
  const askPassword = method === 'cleartext' ? authentication(3) : authentication(10, Buffer.from('SCRAM-SHA-256\0\0'));
  const serverFirst = authentication(11, Buffer.from('r=client-nonce-and-server-nonce,s=c2FsdA==,i=4096'));
  const port = await fakePostgres(t, (socket) => {
    let received = Buffer.alloc(0);
    let asked = false;
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!asked) {
        // The startup message is length-prefixed and has no type byte.
        if (received.length < 4 || received.length < received.readInt32BE(0)) return;
        received = received.subarray(received.readInt32BE(0));
        asked = true;
        socket.write(askPassword);
      }
      // The PasswordMessage (or SASLInitialResponse): 'p', a length, the password ending in a zero byte.
      if (received.length < 5 || received.length < 1 + received.readInt32BE(1)) return;
      if (method === 'scram') {
        received = Buffer.alloc(0);
        socket.write(serverFirst);
        return;
      }
      passwords.push(received.subarray(5, received.readInt32BE(1)).toString('utf8'));
      socket.end(errorResponse('28P01', 'password authentication failed for user "app"'));
    });
  });
  return { port, passwords };
}
