/**
 * /metrics under --workers: each worker counts only the requests it served, so a scrape that
 * reached one worker would show that worker's share. The worker that gets the scrape asks the
 * supervisor, which asks every worker for its figures and sums them with prom-client's
 * AggregatorRegistry.
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

const SCRAPE = 'plantstore:scrape';
const SCRAPED = 'plantstore:scraped';
const REPORT = 'plantstore:report';
const REPORTED = 'plantstore:reported';
/** A worker that has not sent its figures by then (stalled, or busy) is summed with its last ones. */
const REPORT_TIMEOUT_MS = 1_000;
/** The supervisor answers within REPORT_TIMEOUT_MS; this leaves it time of its own. */
const SCRAPE_TIMEOUT_MS = 3_000;

/** One worker's figures, as its registry's getMetricsAsJSON gives them. */
type Figures = MetricObjectWithValues<MetricValue<string>>[];

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

interface ReportRequest {
  type: typeof REPORT;
  round: number;
}

interface Report {
  type: typeof REPORTED;
  round: number;
  figures: Figures;
}

/** Whether a message between the supervisor and its workers is the one of `type`. */
export function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/** A count that only grows while its process lives; a gauge (memory, requests in flight) dies with it. */
function isCumulative(metric: Figures[number]): boolean {
  // prom-client's typings say MetricType, but the figures carry its name.
  const type = String(metric.type);
  return type === 'counter' || type === 'histogram';
}

/**
 * The supervisor's side: answers a worker's scrape with the sum over all workers. It keeps each
 * worker's last figures, so that a worker that does not answer in time still counts, and the
 * counters and histograms of workers that exited, so that no sum Prometheus sees goes down.
 */
export class ClusterMetrics {
  /** Workers that have listened: one still starting has served nothing, and may not answer yet. */
  private readonly listening = new Set<Worker>();
  private readonly last = new Map<Worker, { round: number; figures: Figures }>();
  /** The counters and histograms of the workers that exited, summed. */
  private departed: Promise<Figures> = Promise.resolve([]);
  /** For each round of questions still open, what to do when a worker has answered or exited. */
  private readonly rounds = new Map<number, (worker: Worker) => void>();
  private nextRound = 0;

  /** Takes part in the cluster's messages; call once, in the supervisor. */
  start(): void {
    cluster.on('listening', (worker) => this.listening.add(worker));
    cluster.on('exit', (worker) => this.depart(worker));
    cluster.on('message', (worker, message: unknown) => {
      if (isMessage<Report>(message, REPORTED)) this.record(worker, message);
      else if (isMessage<ScrapeRequest>(message, SCRAPE)) this.answer(worker, message.id);
    });
  }

  private answer(worker: Worker, id: number): void {
    // The worker that asked may have died while the sum was made: the callback takes the error of a reply with nowhere to go.
    const reply = (scraped: ScrapeReply) => worker.send(scraped, () => {});
    this.sum().then(
      (text) => reply({ type: SCRAPED, id, text }),
      (error: Error) => reply({ type: SCRAPED, id, error: error.message }),
    );
  }

  private async sum(): Promise<string> {
    await this.askListening();
    const departed = await this.departed;
    const living = [...this.last.values()].map(({ figures }) => figures);
    return AggregatorRegistry.aggregate([departed, ...living]).metrics();
  }

  /** Asks every listening worker for its figures; resolves when all have answered, or at the timeout. */
  private askListening(): Promise<void> {
    const round = this.nextRound++;
    const pending = new Set(this.listening);
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.rounds.delete(round);
        resolve();
      };
      const timer = setTimeout(finish, REPORT_TIMEOUT_MS);
      this.rounds.set(round, (worker) => {
        pending.delete(worker);
        if (pending.size === 0) finish();
      });
      for (const worker of pending) worker.send({ type: REPORT, round } satisfies ReportRequest, () => {});
      if (pending.size === 0) finish();
    });
  }

  private record(worker: Worker, report: Report): void {
    // A worker's last message may arrive after its exit: it is counted among the departed already.
    if (!this.listening.has(worker)) return;
    // Answers to two rounds may cross: the later round's figures are the newer ones.
    if (report.round >= (this.last.get(worker)?.round ?? -1)) this.last.set(worker, report);
    this.rounds.get(report.round)?.(worker);
  }

  private depart(worker: Worker): void {
    const last = this.last.get(worker);
    this.listening.delete(worker);
    this.last.delete(worker);
    for (const answered of this.rounds.values()) answered(worker);
    if (last === undefined) return;
    const kept = last.figures.filter(isCumulative);
    this.departed = this.departed.then((departed) => AggregatorRegistry.aggregate([departed, kept]).getMetricsAsJSON());
  }
}

/** How /metrics reads `registry`: in a worker, the sum over all workers; otherwise the registry itself. */
export function metricsReader(registry: Registry): () => Promise<string> {
  if (!cluster.isWorker || process.send === undefined) return () => registry.metrics();
  const send = process.send.bind(process);
  const waiting = new Map<number, (reply: ScrapeReply) => void>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (isMessage<ScrapeReply>(message, SCRAPED)) waiting.get(message.id)?.(message);
    else if (isMessage<ReportRequest>(message, REPORT)) {
      // Figures that cannot be read now are not sent: the supervisor sums the last ones it has.
      registry.getMetricsAsJSON().then(
        (figures) => send({ type: REPORTED, round: message.round, figures } satisfies Report, () => {}),
        () => {},
      );
    }
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
