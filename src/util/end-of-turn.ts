/**
 * The work that waits for the end of the event loop's current turn, so that what the turn's
 * requests asked for is done together: writes committed as one batch, a turn's statements sent
 * as one, then the responses sent back to back. One instance per server; the store, the
 * pipelining and the response batcher each give it their steps, which run in the order
 * IN_FIRST_IMMEDIATE and IN_SECOND_IMMEDIATE give.
 */

/** What each step is, by its owner: */
export type EndOfTurnStep =
  /** the store's look for its writer thread's answer, which otherwise waits for the next turn; */
  | 'takeWriteAnswer'
  /** the pipelining's start of the requests whose turn came as earlier responses completed; */
  | 'startWaitingRequests'
  /** the SQLite store's hand-over of the turn's writes to its writer thread; */
  | 'sendWrites'
  /** the PostgreSQL store's batched statements: the turn's token checks, page reads and creates; */
  | 'sendQueries'
  /** the end of the store's read transaction; */
  | 'endReads'
  /** the response batcher's flush. */
  | 'sendResponses';

/** The order the steps run in: these in the first immediate, */
const IN_FIRST_IMMEDIATE: readonly EndOfTurnStep[] = ['takeWriteAnswer', 'startWaitingRequests'];
/** and these in the second. */
const IN_SECOND_IMMEDIATE: readonly EndOfTurnStep[] = ['sendWrites', 'sendQueries', 'endReads', 'sendResponses'];

export class EndOfTurn {
  private readonly steps = new Map<EndOfTurnStep, () => void>();
  private scheduled = false;
  /** The first immediate of the end of turn under way has run: a start asked for now needs the next. */
  private started = false;
  private startAgain = false;

  /** Gives the step its work; each step has one owner, so a second is a wiring mistake. */
  set(step: EndOfTurnStep, work: () => void): void {
    if (this.steps.has(step)) throw new Error(`the end-of-turn step ${step} is given twice`);
    this.steps.set(step, work);
  }

  /** Asks for the steps to run at the end of this turn (once, however often it is asked). */
  readonly schedule = (): void => {
    if (this.scheduled) return;
    this.scheduled = true;
    this.started = false;
    // Two immediates: node runs the promise callbacks that the first starts (the answered
    // writes' handlers and the started requests, which hold their responses) before the
    // second, which sends them.
    setImmediate(this.start);
    setImmediate(this.finish);
  };

  /**
   * Asks for the waiting requests to be started: at this end of the turn if its first immediate
   * has not run yet, else at the next (a response sent by a request started there can let the
   * next pipelined request's turn come before the second immediate).
   */
  readonly scheduleStart = (): void => {
    if (this.scheduled && this.started) this.startAgain = true;
    else this.schedule();
  };

  private readonly start = (): void => {
    this.started = true;
    this.runAll(IN_FIRST_IMMEDIATE);
  };

  private readonly finish = (): void => {
    this.scheduled = false;
    if (this.startAgain) {
      this.startAgain = false;
      this.schedule();
    }
    this.runAll(IN_SECOND_IMMEDIATE);
  };

  /**
   * Runs every step even when one fails, then throws the first failure: a read transaction left
   * open would show a stale snapshot from then on, and held responses would never go out.
   */
  private runAll(steps: readonly EndOfTurnStep[]): void {
    let failed = false;
    let failure: unknown;
    for (const step of steps) {
      try {
        this.steps.get(step)?.();
      } catch (error) {
        if (!failed) [failed, failure] = [true, error];
      }
    }
    if (failed) throw failure;
  }
}
