/**
 * A TCP proxy in front of PostgreSQL that counts the round trips its clients make: each Sync
 * (pg ends every extended-protocol query with one) and each simple Query message is one wait
 * for the server's answer.
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { TestContext } from 'node:test';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'

export interface RoundTripCounter {
  /** The database URL with the proxy in place of the server. */
  readonly url: string;
  /** Round trips since the start or the last reset. */
  readonly count: number;
  reset(): void;
}

/** Counts the frontend messages of one connection as they stream past. */
function frontendParser(onRoundTrip: () => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (!started) {
        // Startup-phase messages carry no type byte: a length, then a code.
        if (pending.length < 8) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        const code = pending.readInt32BE(4);
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) started = true;
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < 1 + length) return;
      const type = pending[0];
      if (type === SYNC || type === QUERY) onRoundTrip();
      pending = pending.subarray(1 + length);
    }
  };
}

export async function startRoundTripCounter(t: TestContext, databaseUrl: string): Promise<RoundTripCounter> {
  const target = new URL(databaseUrl);
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    const parse = frontendParser(() => count++);
    client.on('data', (chunk: Buffer) => {
      parse(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    get count() {
      return count;
    },
    reset() {
      count = 0;
    },
  };
}
