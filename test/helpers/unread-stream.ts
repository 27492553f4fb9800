/**
 * An abusive client of GET /plants: it asks for a whole list over a raw socket, reads the
 * status line, and then reads nothing more, so the server's writes back up and the stream
 * holds its database resources.
 */
import { connect, type Socket } from 'node:net';
import type { TestContext } from 'node:test';

export interface UnreadStream {
  socket: Socket;
  /** The status, once the head arrived; undefined while the server has not answered. */
  status(): number | undefined;
  /** Resolves with the full head and body of a refused (non-200) answer. */
  refusal: Promise<{ status: number; headers: Record<string, string>; body: string }>;
  /** Resolves with the status as soon as the head arrives. */
  answered: Promise<number>;
}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers };
}

export function openUnreadStream(t: TestContext, baseUrl: string, token: string): UnreadStream {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  t.after(() => socket.destroy());
  let status: number | undefined;
  let received = Buffer.alloc(0);
  let settleAnswered: (status: number) => void = () => undefined;
  let settleRefusal: (refusal: { status: number; headers: Record<string, string>; body: string }) => void = () => undefined;
  const answered = new Promise<number>((resolve) => (settleAnswered = resolve));
  const refusal = new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve) => (settleRefusal = resolve));
  const onData = (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const end = received.indexOf('\r\n\r\n');
    if (end === -1) return;
    const head = parseHead(received.subarray(0, end).toString('latin1'));
    if (status === undefined) {
      status = head.status;
      settleAnswered(status);
    }
    if (status === 200) {
      socket.off('data', onData);
      socket.pause(); // from here on the client reads nothing
      return;
    }
    const length = Number(head.headers['content-length'] ?? 0);
    const body = received.subarray(end + 4);
    if (body.length >= length) settleRefusal({ ...head, body: body.subarray(0, length).toString('utf8') });
  };
  socket.on('data', onData);
  socket.write(`GET /plants HTTP/1.1\r\nHost: plantstore\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  return { socket, status: () => status, refusal, answered };
}
