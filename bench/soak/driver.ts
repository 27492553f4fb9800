/**
 * Drives the many mix (../many-mix.ts) over keep-alive connections until a deadline, telling
 * the write model every answer, and counting answers by request and status.
 */
import { Agent, request } from 'node:http';
import type { ManyMix, MixRequest } from '../many-mix.js';
import type { WriteModel } from './model.js';

/** A request with no answer after this long counts as a failed request. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface LoadCounts {
  requests: number;
  /** Answers by `<METHOD> <status>`. */
  byStatus: Map<string, number>;
  serverErrors: number;
  /** Requests with no answer: a socket error or a timeout. */
  noAnswer: number;
  /** Answers the mix never expects (anything but 200 to GET and POST, 204 or 404 to DELETE), 5xx aside. */
  unexpected: number;
}

export class SoakDriver {
  readonly counts: LoadCounts = { requests: 0, byStatus: new Map(), serverErrors: 0, noAnswer: 0, unexpected: 0 };
  /** Answers since the sampler last took them. */
  #sinceSample = 0;
  readonly #agent: Agent;
  readonly #origin: URL;
  readonly #mix: ManyMix;
  readonly #model: WriteModel;
  readonly #ownerNames: readonly string[];

  /** `ownerNames[i]` is the user of the mix's owner i. */
  constructor(origin: string, mix: ManyMix, ownerNames: readonly string[], model: WriteModel, connections: number) {
    this.#origin = new URL(origin);
    this.#mix = mix;
    this.#ownerNames = ownerNames;
    this.#model = model;
    this.#agent = new Agent({ keepAlive: true, maxSockets: connections });
  }

  /** Answers since the last call. */
  takeAnswered(): number {
    const n = this.#sinceSample;
    this.#sinceSample = 0;
    return n;
  }

  /** Runs `connections` request loops until `endAt` (performance.now() time). */
  async run(connections: number, endAt: number): Promise<void> {
    const loop = async () => {
      while (performance.now() < endAt) await this.#once(this.#mix.next());
    };
    await Promise.all(Array.from({ length: connections }, loop));
    this.#agent.destroy();
  }

  async #once(req: MixRequest): Promise<void> {
    const owner = this.#ownerNames[req.owner] ?? '';
    const createdBefore = req.kind === 'delete' && req.id !== undefined && this.#model.createdBefore(owner, req.id);
    const status = await this.#send(req);
    this.counts.requests++;
    this.#sinceSample++;
    if (status === undefined) this.counts.noAnswer++;
    else {
      const label = `${req.method} ${status}`;
      this.counts.byStatus.set(label, (this.counts.byStatus.get(label) ?? 0) + 1);
      if (status >= 500) this.counts.serverErrors++;
      else if (!(status === 200 && req.kind !== 'delete') && !(req.kind === 'delete' && (status === 204 || status === 404))) this.counts.unexpected++;
    }
    if (req.id === undefined) return;
    if (req.kind === 'create') this.#model.createAnswered(owner, req.id, status);
    else if (req.kind === 'delete') this.#model.deleteAnswered(owner, req.id, status, createdBefore);
  }

  /** The status of the answer, or undefined when none came. */
  #send(req: MixRequest): Promise<number | undefined> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#mix.tokenOf(req)}` };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    return new Promise((resolve) => {
      const outgoing = request(
        { host: this.#origin.hostname, port: this.#origin.port, method: req.method, path: req.path, headers, agent: this.#agent, timeout: REQUEST_TIMEOUT_MS },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
          res.on('error', () => resolve(undefined));
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('no answer in time')));
      outgoing.on('error', () => resolve(undefined));
      outgoing.end(req.body);
    });
  }
}
