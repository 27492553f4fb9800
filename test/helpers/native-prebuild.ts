/**
 * Installs in a test run better-sqlite3's real install script (prebuild-install), but point it
 * at a local prebuilt archive made from the binary this checkout already compiled, through
 * prebuild-install's documented local-prebuilds setting, instead of compiling it again for a
 * minute or more. What is tested is the install, not the C++ compiler.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout this test build came from (build/test/helpers → ../../..). */
export const PROJECT = fileURLToPath(new URL('../../../', import.meta.url));

/** Writes the archive into `dir`; returns the environment that makes prebuild-install use it. */
export function localPrebuild(dir: string): Record<string, string> {
  const module = join(PROJECT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(module, 'package.json'), 'utf8')) as { version: string };
  // prebuild-install's file name for glibc Linux: name-vVERSION-node-vABI-PLATFORM-ARCH.tar.gz
  const archive = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(dir, archive), '-C', module, 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

/** npm settings for a bounded, quiet install from the local cache where it can. */
export const QUIET_NPM: Record<string, string> = {
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
