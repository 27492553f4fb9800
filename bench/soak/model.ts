/**
 * What the store must hold after the soak: every acknowledged write. A create answered 200
 * must be listed unless a delete of it was answered 204; a delete answered 204 must stay
 * deleted. A write with no definite answer (socket error, 5xx) may have happened or not, so
 * either outcome is accepted for it. A delete answered 404 after its create's 200 had arrived
 * is a lost create found during the run.
 */

interface PlantState {
  seeded: boolean;
  created: boolean;
  deleted: boolean;
  /** A write was sent whose outcome is not known: the plant may or may not exist. */
  uncertain: boolean;
}

export interface ModelCheck {
  /** Plants the model holds as present that the listing lacks (acknowledged creates lost). */
  lostCreates: string[];
  /** Plants deleted with a 204 that the listing still shows. */
  lostDeletes: string[];
  /** Listed plants no write of the soak nor the seed explains. */
  phantoms: string[];
  /** Plants expected present and listed. */
  present: number;
}

const key = (owner: string, id: number) => `${owner} ${id}`;

export class WriteModel {
  /** Plants by owner, then by `key(owner, id)`. */
  readonly #plants = new Map<string, Map<string, PlantState>>();
  /** Deletes answered 404 whose create had been answered 200 before the delete was sent. */
  readonly #lostBeforeDelete = new Set<string>();
  acknowledgedCreates = 0;
  acknowledgedDeletes = 0;

  #state(owner: string, id: number): PlantState {
    let plants = this.#plants.get(owner);
    if (plants === undefined) {
      plants = new Map();
      this.#plants.set(owner, plants);
    }
    const k = key(owner, id);
    let state = plants.get(k);
    if (state === undefined) {
      state = { seeded: false, created: false, deleted: false, uncertain: false };
      plants.set(k, state);
    }
    return state;
  }

  seeded(owner: string, ids: readonly number[]): void {
    for (const id of ids) this.#state(owner, id).seeded = true;
  }

  /** A create was sent; `status` is its answer, or undefined when none came. */
  createAnswered(owner: string, id: number, status: number | undefined): void {
    const state = this.#state(owner, id);
    if (status === 200) {
      state.created = true;
      this.acknowledgedCreates++;
    } else if (status === undefined || status >= 500) state.uncertain = true;
  }

  /** Whether the create of this plant had been acknowledged: call as the delete is sent. */
  createdBefore(owner: string, id: number): boolean {
    return this.#plants.get(owner)?.get(key(owner, id))?.created === true;
  }

  /** A delete was sent after `createdBefore` said what it did; `status` is its answer. */
  deleteAnswered(owner: string, id: number, status: number | undefined, createdBefore: boolean): void {
    const state = this.#state(owner, id);
    if (status === 204) {
      state.deleted = true;
      this.acknowledgedDeletes++;
    } else if (status === 404 && createdBefore && !state.uncertain) this.#lostBeforeDelete.add(key(owner, id));
    else if (status === undefined || status >= 500) state.uncertain = true;
  }

  /** Compares the listings with the model: `listed` maps each owner to every id it listed; owners not in it are not checked. */
  check(listed: ReadonlyMap<string, readonly number[]>): ModelCheck {
    const result: ModelCheck = { lostCreates: [...this.#lostBeforeDelete], lostDeletes: [], phantoms: [], present: 0 };
    for (const [owner, ids] of listed) {
      const plants = this.#plants.get(owner) ?? new Map<string, PlantState>();
      const shown = new Set(ids.map((id) => key(owner, id)));
      for (const k of shown) if (!plants.has(k)) result.phantoms.push(k);
      for (const [k, state] of plants) {
        if (state.deleted) {
          if (shown.has(k)) result.lostDeletes.push(k);
        } else if ((state.seeded || state.created) && !state.uncertain) {
          if (shown.has(k)) result.present++;
          else if (!this.#lostBeforeDelete.has(k)) result.lostCreates.push(k);
        }
      }
    }
    return result;
  }
}

export function lostWrites(check: ModelCheck): number {
  return check.lostCreates.length + check.lostDeletes.length;
}
