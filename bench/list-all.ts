/**
 * list-all: GET /plants without limit for the user with a million plants, read as fast as
 * the client can: time to the first body byte, total time, and the server's memory.
 */
import { request } from 'node:http';

export interface ListAllResult {
  status: number;
  firstByteMs: number;
  totalMs: number;
  bytes: number;
  /** Counted as closing braces: seeded names and tags contain none. */
  plants: number;
}

export function listAll(origin: string, token: string, timeoutMs: number): Promise<ListAllResult> {
  const url = new URL('/plants', origin);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstByteMs = NaN;
    let bytes = 0;
    let plants = 0;
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, timeout: timeoutMs }, (res) => {
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteMs = performance.now() - started;
        bytes += chunk.length;
        for (let at = chunk.indexOf(0x7d); at !== -1; at = chunk.indexOf(0x7d, at + 1)) plants++;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, firstByteMs, totalMs: performance.now() - started, bytes, plants }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET /plants took longer than ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
