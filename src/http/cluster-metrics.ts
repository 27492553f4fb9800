/**
 * /metrics under --workers: each worker counts only the requests it served, so a scrape that
 * reached one worker would show that worker's share. The worker that gets the scrape asks the
 * supervisor, which sums every worker's figures with prom-client's AggregatorRegistry.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

const SCRAPE = 'plantstore:scrape';
const SCRAPED = 'plantstore:scraped';
/** prom-client gives up on a worker that does not answer after 5 s; this waits a little longer. */
const SCRAPE_TIMEOUT_MS = 6_000;

interface ScrapeRequest {
  type: typeof SCRAPE;
  id: number;
}

interface ScrapeReply {
  type: typeof SCRAPED;
  id: number;
  text?: string;
  error?: string;
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/** The supervisor's side: answers a worker's scrape with the sum over all workers. */
export function aggregateWorkerMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage<ScrapeRequest>(message, SCRAPE)) return;
    const reply = (scraped: ScrapeReply) => {
      // The worker that asked may have died while the sum was made: its reply has nowhere to go.
      if (worker.isConnected()) worker.send(scraped, () => {});
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ type: SCRAPED, id: message.id, text }),
      (error: Error) => reply({ type: SCRAPED, id: message.id, error: error.message }),
    );
  });
}

/**
 * A worker's side, from its first moment: constructing an AggregatorRegistry makes prom-client
 * answer the supervisor's requests for this worker's figures, so a worker still starting adds
 * nothing to a scrape instead of stalling it.
 */
export function joinMetricsAggregation(): void {
  if (!cluster.isWorker) return;
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([]);
}

/** How /metrics reads `registry`: in a worker, the sum over all workers; otherwise the registry itself. */
export function metricsReader(registry: Registry): () => Promise<string> {
  if (!cluster.isWorker || process.send === undefined) return () => registry.metrics();
  joinMetricsAggregation();
  AggregatorRegistry.setRegistries([registry]);
  const send = process.send.bind(process);
  const waiting = new Map<number, (reply: ScrapeReply) => void>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (isMessage<ScrapeReply>(message, SCRAPED)) waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => settle({ type: SCRAPED, id, error: 'the supervisor did not answer' }), SCRAPE_TIMEOUT_MS);
      const settle = (reply: ScrapeReply) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (reply.text !== undefined) resolve(reply.text);
        else reject(new Error(`cannot sum the workers' metrics: ${reply.error}`));
      };
      waiting.set(id, settle);
      send({ type: SCRAPE, id } satisfies ScrapeRequest);
    });
}
