/**
 * The TLS files a postgres:// URL names, checked before the first connection: pg reads them only
 * as it connects, and a file that is no certificate or key would then fail every connection as
 * if the database did not answer.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';

/** The files' contents, as pg-connection-string's parse reads them into `ssl`. */
export interface TlsFiles {
  ca?: unknown;
  cert?: unknown;
  key?: unknown;
}

function reason(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ?? message;
}

/** Why pg could not use these files, naming the URL parameter; undefined when it could. */
export function tlsFilesProblem(files: TlsFiles): string | undefined {
  const certificates: Record<string, X509Certificate> = {};
  for (const [parameter, content] of [['sslrootcert', files.ca], ['sslcert', files.cert]] as const) {
    if (typeof content !== 'string') continue;
    try {
      certificates[parameter] = new X509Certificate(content);
    } catch (error) {
      return `names as ${parameter} a file that holds no PEM certificate (${reason(error)})`;
    }
  }
  if (typeof files.key !== 'string') return undefined;
  let key;
  try {
    key = createPrivateKey(files.key);
  } catch (error) {
    return `names as sslkey a file that holds no unencrypted PEM private key (${reason(error)})`;
  }
  const client = certificates.sslcert;
  if (client !== undefined && !client.checkPrivateKey(key)) return 'names an sslkey that is not the key of its sslcert';
  return undefined;
}
