/**
 * Requests answered, counted in plain arrays: a counter by route, method and status and a
 * latency histogram by route and method. prom-client's own observe() checks and hashes the
 * labels on every call, a cost the benchmark measures at load; here a request pays one Map
 * lookup, and the Prometheus samples are built only when /metrics is read.
 */

const LATENCY_METRIC = 'plantstore_http_request_duration_seconds';
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** One Prometheus sample and one metric, as prom-client's Registry reads them. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

export interface RegistryMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: Sample[] }>;
  reset(): void;
}

interface Totals {
  route: string;
  method: string;
  count: number;
  seconds: number;
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  buckets: number[];
}

interface Series extends Totals {
  status: string;
}

function noObservations(route: string, method: string): Totals {
  return { route, method, count: 0, seconds: 0, buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0) };
}

export class RequestMetrics {
  private readonly series = new Map<string, Series>();

  observe(route: string, method: string, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    let series = this.series.get(key);
    if (series === undefined) {
      series = { ...noObservations(route, method), status: String(status) };
      this.series.set(key, series);
    }
    series.count++;
    series.seconds += seconds;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] as number)) bucket++;
    (series.buckets[bucket] as number)++;
  }

  /** The two metrics, for Registry.registerMetric. */
  metrics(): RegistryMetric[] {
    return [
      this.metric('plantstore_http_requests_total', 'HTTP requests answered, by route template, method and status.', 'counter', () =>
        [...this.series.values()].map((s) => ({ labels: { route: s.route, method: s.method, status: s.status }, value: s.count })),
      ),
      this.metric(LATENCY_METRIC, 'Time from request to the end of the response, by route template and method.', 'histogram', () =>
        this.latencySamples(),
      ),
    ];
  }

  private metric(name: string, help: string, type: RegistryMetric['type'], samples: () => Sample[]): RegistryMetric {
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      reset: () => this.series.clear(),
      get: async () => ({ name, help, type, aggregator: 'sum', values: samples() }),
    };
  }

  private latencySamples(): Sample[] {
    const byRoute = new Map<string, Totals>();
    for (const s of this.series.values()) {
      const key = `${s.route} ${s.method}`;
      let sum = byRoute.get(key);
      if (sum === undefined) {
        sum = noObservations(s.route, s.method);
        byRoute.set(key, sum);
      }
      sum.count += s.count;
      sum.seconds += s.seconds;
      s.buckets.forEach((n, i) => ((sum.buckets[i] as number) += n));
    }
    const samples: Sample[] = [];
    for (const { route, method, count, seconds, buckets } of byRoute.values()) {
      let cumulative = 0;
      buckets.forEach((n, i) => {
        cumulative += n;
        const le = i < LATENCY_BUCKETS.length ? (LATENCY_BUCKETS[i] as number) : '+Inf';
        samples.push({ metricName: `${LATENCY_METRIC}_bucket`, labels: { route, method, le }, value: cumulative });
      });
      samples.push({ metricName: `${LATENCY_METRIC}_sum`, labels: { route, method }, value: seconds });
      samples.push({ metricName: `${LATENCY_METRIC}_count`, labels: { route, method }, value: count });
    }
    return samples;
  }
}
