/** `plantstore serve`: run the server until SIGTERM or SIGINT, then drain and exit 0. */
import type { Settings } from './settings.js';
import { startServer } from './server.js';

export async function serve(settings: Settings): Promise<void> {
  const running = await startServer(settings);
  const stop = (signal: string) => {
    running.logger.info({ signal }, 'draining in-flight requests');
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        running.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
