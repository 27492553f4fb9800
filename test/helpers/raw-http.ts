/** Raw HTTP over a socket, for requests fetch will not send (bad headers, no Host, any bytes). */
import { connect } from 'node:net';

/** Shorter than the server's 5 s keep-alive timeout, which would close an idle connection anyway. */
const CLOSE_WAIT_MS = 2_000;

/**
 * Writes `request` as it is and resolves with everything the server sent until the connection
 * closed or `timeoutMs` passed, and whether the server closed it. The socket is not half-closed:
 * node's server ends a connection whose client has, answered or not.
 */
function exchange(baseUrl: string, request: string | Buffer, timeoutMs: number): Promise<{ text: string; closedByServer: boolean }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closedByServer: !timedOut });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while the rest of the request is still being written.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return;
      clearTimeout(timer);
      reject(error);
    });
    socket.write(request);
  });
}

/** What the server sent until it closed the connection, or until `timeoutMs` passed. */
export async function rawExchange(baseUrl: string, request: string | Buffer, timeoutMs = 5_000): Promise<string> {
  return (await exchange(baseUrl, request, timeoutMs)).text;
}

/** What the server sent; fails unless the server itself closes the connection after it. */
export async function rawExchangeClosed(baseUrl: string, request: string | Buffer): Promise<string> {
  const { text, closedByServer } = await exchange(baseUrl, request, CLOSE_WAIT_MS);
  if (!closedByServer) throw new Error(`the server left the connection open after ${JSON.stringify(text.slice(0, 80))}`);
  return text;
}
