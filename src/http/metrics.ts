/**
 * Prometheus metrics through prom-client: requests by route, method and status; latency; database
 * figures. One per process: prom-client's default collectors (a GC observer, an event-loop delay
 * monitor) cannot be stopped, so a start retried while the database is down reuses the first.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics, type LabelValues } from 'prom-client';
import { metricsReader } from './cluster-metrics.js';

type RequestLabels = 'route' | 'method' | 'status';

export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter<RequestLabels>({
    name: 'plantstore_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram<'route' | 'method'>({
    name: 'plantstore_http_request_duration_seconds',
    help: 'Time from request to the end of the response, by route template and method.',
    labelNames: ['route', 'method'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });
  private readonly writeBatchSize = new Histogram({
    name: 'plantstore_db_write_batch_size',
    help: 'Writes committed together in one transaction (group commit): every write on SQLite, plant creates on PostgreSQL.',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    registers: [this.registry],
  });
  private readonly writeBatchSeconds = new Histogram({
    name: 'plantstore_db_write_batch_duration_seconds',
    help: 'Time to commit one write batch, its sync to disk included.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  /** Bound children by label values: prom-client hashes the labels of every unbound call. */
  private readonly requestChildren = new Map<string, { count: Counter.Internal; latency: Histogram.Internal<'route' | 'method'> }>();

  /** The text /metrics serves: under --workers, the sum over all workers. */
  readonly scrape: () => Promise<string>;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'plantstore_' });
    this.scrape = metricsReader(this.registry);
  }

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    let children = this.requestChildren.get(key);
    if (children === undefined) {
      const labels: LabelValues<RequestLabels> = { route, method, status };
      children = { count: this.requests.labels(labels), latency: this.latency.labels({ route, method }) };
      this.requestChildren.set(key, children);
    }
    children.count.inc();
    children.latency.observe(seconds);
  }

  observeWriteBatch(size: number, seconds: number): void {
    this.writeBatchSize.observe(size);
    this.writeBatchSeconds.observe(seconds);
  }
}
