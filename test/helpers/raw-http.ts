/** Raw HTTP over a socket, for requests fetch will not send (bad headers, no Host, any bytes). */
import { connect } from 'node:net';

/**
 * Writes `request` as it is and resolves with everything the server sends until it closes
 * the connection or `timeoutMs` passes (then with what came so far). The socket is not
 * half-closed: node's server ends a connection whose client has, answered or not.
 */
export function rawExchange(baseUrl: string, request: string | Buffer, timeoutMs = 5_000): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
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
