/**
 * `raw` with the passwords a URL can carry (its userinfo, a `password` parameter) shown as
 * `***`; `raw` itself when it has none; undefined when it does not parse as a URL.
 */
export function maskedUrl(raw: string): string | undefined {
  if (!URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  if (url.password === '' && !url.searchParams.has('password')) return raw;
  if (url.password !== '') url.password = '***';
  if (url.searchParams.has('password')) url.searchParams.set('password', '***');
  return url.href;
}
