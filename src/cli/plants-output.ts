/** How `plants` commands print plants: an aligned table, JSON with exact integer ids, CSV. */
import type { Plant } from '../client/index.js';
import { csvRow } from './csv.js';

/** One plant as a JSON object with its id as an integer literal (JSON.stringify cannot write a bigint). */
export function plantJson(plant: Plant): string {
  const tag = plant.tag === undefined ? '' : `,"tag":${JSON.stringify(plant.tag)}`;
  return `{"id":${plant.id},"name":${JSON.stringify(plant.name)}${tag}}`;
}

export const CSV_HEADER = csvRow(['id', 'name', 'tag']);

export function plantCsv(plant: Plant): string {
  return csvRow([plant.id.toString(), plant.name, plant.tag ?? '']);
}

function width(text: string): number {
  return [...text].length;
}

/** A table with a header: ids right-aligned, names and tags left-aligned; a plant without a tag has an empty cell. */
export function plantTable(plants: readonly Plant[]): string {
  const rows = [['ID', 'NAME', 'TAG'], ...plants.map((plant) => [plant.id.toString(), plant.name, plant.tag ?? ''])];
  // A loop, not Math.max(...): a list of hundreds of thousands of plants would overflow the stack.
  const widths = [0, 0];
  for (const row of rows) for (const column of [0, 1]) widths[column] = Math.max(widths[column] ?? 0, width(row[column] ?? ''));
  let out = '';
  for (const [id = '', name = '', tag = ''] of rows) {
    const line = `${' '.repeat((widths[0] ?? 0) - width(id))}${id}  ${name}${' '.repeat((widths[1] ?? 0) - width(name))}  ${tag}`;
    out += `${line.trimEnd()}\n`;
  }
  return out;
}
