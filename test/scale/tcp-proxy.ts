/**
 * A TCP proxy in front of the shared PostgreSQL server, so one plantstore instance can lose
 * its database without stopping the server that every other test uses.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

/** open: forwards; refuse: cuts every connection at once; blackhole: accepts and never answers. */
export type ProxyMode = 'open' | 'refuse' | 'blackhole';

export interface TcpProxy {
  port: number;
  setMode(mode: ProxyMode): void;
  /**
   * From blackhole back to open over the same connections, as a paused server (SIGSTOP, then
   * SIGCONT) comes back: the bytes that waited are delivered, and nobody reconnects.
   */
  resume(): void;
  /** Connections cut so far in refuse mode. */
  readonly refused: number;
}

export async function startTcpProxy(t: TestContext, target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'open';
  let refused = 0;
  const pairs = new Set<[Socket, Socket | undefined]>();
  const server: Server = createServer((client) => {
    client.on('error', () => undefined);
    if (mode === 'refuse') {
      refused++;
      return void client.destroy();
    }
    if (mode === 'blackhole') {
      const held: [Socket, undefined] = [client, undefined];
      pairs.add(held);
      return void client.on('close', () => pairs.delete(held));
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
    const pair: [Socket, Socket | undefined] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    for (const [client, upstream] of pairs) {
      client.destroy();
      upstream?.destroy();
    }
    server.close();
  });
  return {
    port: (server.address() as AddressInfo).port,
    get refused() {
      return refused;
    },
    resume() {
      mode = 'open';
      for (const pair of [...pairs]) {
        const [client, upstream] = pair;
        if (upstream === undefined) {
          client.destroy(); // accepted during the silence, never connected on
          pairs.delete(pair);
        } else {
          client.pipe(upstream).pipe(client);
        }
      }
    },
    setMode(next) {
      const previous = mode;
      mode = next;
      if (next === previous) return;
      for (const pair of [...pairs]) {
        const [client, upstream] = pair;
        if (next === 'blackhole' && upstream !== undefined) {
          // The network goes silent: bytes stop flowing both ways, and nobody is told.
          client.unpipe();
          upstream.unpipe();
          client.pause();
          upstream.pause();
        } else {
          // Cut, or back from silence: connections from before are dead for good.
          client.destroy();
          upstream?.destroy();
          pairs.delete(pair);
        }
      }
    },
  };
}

/** TEST_DATABASE_URL with its host and port replaced by the proxy's. */
export function throughProxy(databaseUrl: string, proxy: TcpProxy): string {
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return url.toString();
}

/** Host and port of a postgres:// URL. */
export function databaseAddress(databaseUrl: string): { host: string; port: number } {
  const url = new URL(databaseUrl);
  return { host: url.hostname || '127.0.0.1', port: Number(url.port || '5432') };
}
