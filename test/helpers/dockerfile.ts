/**
 * Reads a Dockerfile into its stages and instructions, for a test that replays its steps
 * where no container runtime exists. Handles what plantstore's Dockerfile uses: line
 * continuations, comments, `FROM … AS name`, and JSON (exec) forms.
 */

export interface Instruction {
  keyword: string;
  /** The text after the keyword, continuation lines joined with one space. */
  args: string;
}

export interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push(`${pending}${line}`.trim());
    pending = '';
  }
  for (const line of logical) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = line.slice(keyword.length).trim();
    if (keyword.toUpperCase() === 'FROM') {
      const [image = '', as, name] = rest;
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) throw new Error(`${keyword} before FROM`);
    stage.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

/** `KEY=value KEY2="value 2"` as ENV writes them. */
export function parseEnv(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g)) {
    env[match[1] as string] = match[3] ?? (match[2] as string);
  }
  return env;
}

/** The exec (JSON array) form of CMD, ENTRYPOINT or HEALTHCHECK … CMD. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) throw new Error(`not an exec form: ${args}`);
  return parsed;
}
