/**
 * Turns the driver's failures into the store's: trouble reaching or using the database becomes
 * StoreUnavailableError (503, retry), a value the database refuses becomes a 400, never a 500.
 */
import pg from 'pg';
import { StoreUnavailableError, errors } from '../../errors.js';

/**
 * SQLSTATE classes that mean "the database cannot serve now": connection exception (08),
 * transaction rollback such as serialization or deadlock (40), insufficient resources (53),
 * object not in prerequisite state such as a lock timeout (55), operator intervention such as
 * shutdown or a statement timeout (57), system error (58), invalid authorization (28),
 * unknown database (3D) and invalid transaction state such as a read-only standby (25).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '25', '28', '3D', '40', '53', '55', '57', '58']);

/**
 * Data exception (22, e.g. a NUL character in text) and program limit exceeded (54, e.g. an
 * owner name too long for the primary key index): the request carried a value PostgreSQL
 * cannot hold, so it is the client's request that is at fault, not the service.
 */
const CLIENT_VALUE_CLASSES = new Set(['22', '54']);

/** True for an error PostgreSQL answered with (a SQLSTATE), false for trouble reaching it. */
export function isDatabaseError(error: unknown): boolean {
  return error instanceof pg.DatabaseError;
}

/** Maps one failure of a pg call to the error the store throws. */
export function toStoreError(error: unknown): unknown {
  if (error instanceof pg.DatabaseError) {
    const sqlClass = (error.code ?? '').slice(0, 2);
    if (UNAVAILABLE_CLASSES.has(sqlClass)) {
      return new StoreUnavailableError(`PostgreSQL failed (${error.code}): ${error.message}`, { cause: error });
    }
    if (CLIENT_VALUE_CLASSES.has(sqlClass)) {
      return errors.badRequest('The request carries a value the database cannot store, such as a NUL character or an over-long name.');
    }
    return error;
  }
  // Everything else pg throws is about the connection: refused, reset, connect or read timeout,
  // "Connection terminated", a pool that is closing. None of it is the request's fault.
  if (error instanceof Error) {
    return new StoreUnavailableError(`PostgreSQL is unreachable: ${error.message}`, { cause: error });
  }
  return error;
}

/** Runs one piece of database work and maps its failure. */
export async function mapPgErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toStoreError(error);
  }
}
