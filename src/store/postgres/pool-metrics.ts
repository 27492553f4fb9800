/** Connection pool figures on /metrics, read from the pool at each scrape. */
import { Gauge, type Registry } from 'prom-client';

export interface PoolStats {
  /** The pool's size limit (DATABASE_POOL_SIZE). */
  max: number;
  total: number;
  idle: number;
  waiting: number;
}

const CONNECTIONS = 'plantstore_db_pool_connections';
const WAITING = 'plantstore_db_pool_waiting';

/** Shows the figures of a new pool; those of a pool before it (a start retried) are dropped. */
export function registerPoolMetrics(registry: Registry, stats: () => PoolStats): void {
  registry.removeSingleMetric(CONNECTIONS);
  registry.removeSingleMetric(WAITING);
  new Gauge({
    name: CONNECTIONS,
    help: 'PostgreSQL connections of this instance, by state (busy, idle) and the pool size limit (max).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const now = stats();
      this.set({ state: 'busy' }, now.total - now.idle);
      this.set({ state: 'idle' }, now.idle);
      this.set({ state: 'max' }, now.max);
    },
  });
  new Gauge({
    name: WAITING,
    help: 'Queries waiting for a free PostgreSQL connection; steadily above 0 means DATABASE_POOL_SIZE is too small.',
    registers: [registry],
    collect() {
      this.set(stats().waiting);
    },
  });
}
