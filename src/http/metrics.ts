/** Prometheus metrics: requests by route, method and status; latency; database figures. */
import { Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { RequestMetrics } from './request-metrics.js';

export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new RequestMetrics();
  readonly writeBatchSize = new Histogram({
    name: 'plantstore_db_write_batch_size',
    help: 'Writes committed together in one transaction (group commit).',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    registers: [this.registry],
  });
  readonly writeBatchSeconds = new Histogram({
    name: 'plantstore_db_write_batch_duration_seconds',
    help: 'Time to commit one write batch, fsync included.',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });

  constructor() {
    // The Registry reads only name, help, type and get(); its Metric type lists prom-client's own classes.
    for (const metric of this.requests.metrics()) this.registry.registerMetric(metric as unknown as Metric);
    collectDefaultMetrics({ register: this.registry, prefix: 'plantstore_' });
  }

  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.requests.observe(route, method, status, seconds);
  }

  observeWriteBatch(size: number, seconds: number): void {
    this.writeBatchSize.observe(size);
    this.writeBatchSeconds.observe(seconds);
  }
}
