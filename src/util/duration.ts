const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

type Unit = keyof typeof UNIT_MS;

/** Parses `<n><unit>` (`30s`, `5m`, `2h`, `3d`, of the units allowed) into milliseconds; undefined when malformed. */
export function parseDuration(text: string, units: readonly Unit[] = ['s', 'm', 'h', 'd']): number | undefined {
  const match = /^([1-9][0-9]{0,8})([smhd])$/.exec(text);
  if (match === null || !units.includes(match[2] as Unit)) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as Unit];
}
