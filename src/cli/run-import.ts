/** `plants import` on a terminal: a progress line while it runs, then the summary and the exit code. */
import type { PlantStoreClient } from '../client/index.js';
import { EXIT_REFUSED, describeFailure } from './cli-errors.js';
import { NotUtf8Error, type InputItem } from './plant-input.js';
import { ImportStoppedError, importPlants, type ImportSummary } from './plants-import.js';

/** More conflicts and refusals than this are counted but not each listed. */
const LISTED_MAX = 1000;
const PROGRESS_EVERY_MS = 200;

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function counts(summary: ImportSummary): string {
  return (
    `${summary.created} created, ${summary.unchanged} unchanged, ` +
    `${plural(summary.conflicts.length, 'conflict', 'conflicts')}, ${plural(summary.refused.length, 'refused line', 'refused lines')}`
  );
}

/** The summary: the counts, then each conflict and refused line by line number. */
function summaryText(summary: ImportSummary): string {
  const problems = [
    ...summary.conflicts.map(({ line, id }) => ({ line, text: `conflict: plant ${id} exists with a different name or tag` })),
    ...summary.refused.map(({ line, reason }) => ({ line, text: `refused: ${reason}` })),
  ].sort((a, b) => a.line - b.line);
  let out = `imported: ${counts(summary)}\n`;
  for (const { line, text } of problems.slice(0, LISTED_MAX)) out += `line ${line}: ${text}\n`;
  if (problems.length > LISTED_MAX) out += `… and ${problems.length - LISTED_MAX} more\n`;
  return out;
}

/** Imports, prints the summary on stdout, and returns the exit code: 1 when anything was refused. */
export async function runImport(client: PlantStoreClient, items: AsyncIterable<InputItem>, options: { concurrency: number; url: string }): Promise<number> {
  const terminal = process.stderr.isTTY === true;
  let shownAt = 0;
  const onProgress = (summary: Readonly<ImportSummary>) => {
    const now = Date.now();
    if (!terminal || now - shownAt < PROGRESS_EVERY_MS) return;
    shownAt = now;
    process.stderr.write(`\r\x1b[2Kimporting: ${counts(summary)}`);
  };
  const clearProgress = () => {
    if (terminal && shownAt !== 0) process.stderr.write('\r\x1b[2K');
  };
  let summary: ImportSummary;
  try {
    summary = await importPlants(client, items, { concurrency: options.concurrency, onProgress });
  } catch (error) {
    clearProgress();
    if (!(error instanceof ImportStoppedError)) throw error;
    const { line, exitCode } = describeFailure(error.cause, options.url);
    const reason = error.cause instanceof NotUtf8Error ? 'it is not valid UTF-8' : line;
    printSummary(error.summary, exitCode);
    process.stderr.write(`plantstore: the import stopped at line ${error.line} (a re-run is safe): ${reason}\n`);
    return exitCode;
  }
  clearProgress();
  return printSummary(summary, summary.conflicts.length + summary.refused.length > 0 ? EXIT_REFUSED : 0);
}

/** Sets the exit code before the summary is written: a reader that stops reading ends the process then (stdoutFailed). */
function printSummary(summary: ImportSummary, exitCode: number): number {
  process.exitCode = exitCode;
  process.stdout.write(summaryText(summary));
  return exitCode;
}
