/**
 * `raw` with the passwords a URL can carry (its userinfo, a parameter whose name holds
 * `password`, as `sslpassword` does) shown as `***`; `raw` itself when it has none; undefined
 * when it does not parse as a URL, or holds an `@` outside any userinfo: `postgres://app:20/x@db`
 * parses as host `app:20`, and its password `20/x` would be shown.
 */
export function maskedUrl(raw: string): string | undefined {
  if (!URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  if (url.username === '' && url.password === '' && raw.includes('@')) return undefined;
  const secretParameters = [...url.searchParams.keys()].filter((name) => /password/i.test(name));
  if (url.password === '' && secretParameters.length === 0) return raw;
  if (url.password !== '') url.password = '***';
  for (const name of secretParameters) url.searchParams.set(name, '***');
  return url.href;
}
