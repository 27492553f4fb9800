/**
 * Fair use of streamed lists (GET /plants without limit, or over 1000): each holds a database
 * snapshot, and on PostgreSQL a pooled connection, for as long as its client reads. One owner may
 * hold at most STREAMS_PER_OWNER of them (429 past it), and one process at most
 * STREAMS_PER_PROCESS (503).
 */
import { errors } from '../errors.js';

/** A stream lasts seconds at least: asking again sooner would only be refused again. */
export const STREAM_RETRY_AFTER_SECONDS = 5;

export interface StreamLimits {
  perOwner: number;
  perProcess: number;
}

/** An admitted stream's shares, each safe to give back twice. */
export interface AdmittedStream {
  /** Gives back the owner's share: its response is complete, its snapshot may still be closing. */
  releaseOwner(): void;
  /** Gives back both shares, once the snapshot is closed. */
  release(): void;
}

export class StreamAdmission {
  private readonly byOwner = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: StreamLimits) {}

  /** Streams open now, across all owners. */
  get open(): number {
    return this.total;
  }

  /**
   * Admits one stream for `owner`, or throws the 429 or 503. The owner's share goes back as soon
   * as the response is complete, so that an owner may stream again at once; the process's share,
   * which stands for a snapshot connection, only once that is closed.
   */
  admit(owner: string): AdmittedStream {
    const held = this.byOwner.get(owner) ?? 0;
    if (held >= this.limits.perOwner) throw errors.tooManyStreams(this.limits.perOwner, STREAM_RETRY_AFTER_SECONDS);
    if (this.total >= this.limits.perProcess) throw errors.streamsBusy(STREAM_RETRY_AFTER_SECONDS);
    this.byOwner.set(owner, held + 1);
    this.total++;
    let ownerReleased = false;
    let released = false;
    const releaseOwner = () => {
      if (ownerReleased) return;
      ownerReleased = true;
      const left = (this.byOwner.get(owner) ?? 1) - 1;
      if (left === 0) this.byOwner.delete(owner);
      else this.byOwner.set(owner, left);
    };
    return {
      releaseOwner,
      release: () => {
        releaseOwner();
        if (released) return;
        released = true;
        this.total--;
      },
    };
  }
}
