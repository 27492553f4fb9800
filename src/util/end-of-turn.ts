/**
 * The work that waits for the end of the event loop's current turn, so that what the turn's
 * requests asked for is done together. It runs in this order: the writer thread's answer to the
 * batch it was given is taken if it is there, and the writes it answers are told; pipelined
 * requests whose turn came start; the turn's writes go to the writer thread as one batch (their
 * responses follow once it is synced); the turn's read transaction ends; then the turn's held
 * responses are sent back to back. One instance per server; the store, the pipelining and the
 * response batcher each give it their steps.
 */
export class EndOfTurn {
  private takeWriteAnswer: (() => void) | undefined;
  private startWaitingRequests: (() => void) | undefined;
  private commitWrites: (() => void) | undefined;
  private endReads: (() => void) | undefined;
  private sendResponses: (() => void) | undefined;
  private scheduled = false;
  /** The first immediate of the end of turn under way has run: a start asked for now needs the next. */
  private started = false;
  private startAgain = false;

  /** The store's look for its writer thread's answer, which otherwise waits for the next turn. */
  setTakeWriteAnswer(step: () => void): void {
    this.takeWriteAnswer = step;
  }

  /** The pipelining's start of the requests whose turn came as earlier responses completed. */
  setStartWaitingRequests(step: () => void): void {
    this.startWaitingRequests = step;
  }

  /** The store's hand-over of the turn's writes to its writer thread. */
  setCommitWrites(step: () => void): void {
    this.commitWrites = step;
  }

  /** The end of the store's read transaction. */
  setEndReads(step: () => void): void {
    this.endReads = step;
  }

  /** The response batcher's flush. */
  setSendResponses(step: () => void): void {
    this.sendResponses = step;
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
    runAll([this.takeWriteAnswer, this.startWaitingRequests]);
  };

  private readonly finish = (): void => {
    this.scheduled = false;
    if (this.startAgain) {
      this.startAgain = false;
      this.schedule();
    }
    runAll([this.commitWrites, this.endReads, this.sendResponses]);
  };
}

/**
 * Runs every step even when one fails, then throws the first failure: a read transaction left
 * open would show a stale snapshot from then on, and held responses would never go out.
 */
function runAll(steps: readonly ((() => void) | undefined)[]): void {
  let failed = false;
  let failure: unknown;
  for (const step of steps) {
    try {
      step?.();
    } catch (error) {
      if (!failed) [failed, failure] = [true, error];
    }
  }
  if (failed) throw failure;
}
