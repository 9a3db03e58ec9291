import type { NextFunction, Request, Response } from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root';

export const CONSOLE_PATH = '/console';

/** The built console (`vite build` → dist/console), found from the package root whether we run from src/ or dist/. */
export function consoleDirectory(from = __dirname): string {
  return join(packageRoot(from), 'dist', 'console');
}

/**
 * Serves the console without authentication (it is static; the API it calls is not): hashed assets with a
 * long cache, every other GET under /console/ answered with index.html so deep links work, and `/` redirected.
 */
export function serveConsole(app: NestExpressApplication, directory = consoleDirectory()): void {
  const index = join(directory, 'index.html');
  app.use((request: Request, response: Response, next: NextFunction) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    if (request.path === '/' || request.path === CONSOLE_PATH) return response.redirect(302, `${CONSOLE_PATH}/`);
    next();
  });
  app.useStaticAssets(join(directory, 'assets'), {
    prefix: `${CONSOLE_PATH}/assets/`,
    immutable: true,
    maxAge: '365d',
    fallthrough: false,
  });
  app.useStaticAssets(directory, { prefix: `${CONSOLE_PATH}/`, index: false, maxAge: '1h' });
  app.use(CONSOLE_PATH, (request: Request, response: Response, next: NextFunction) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    if (!existsSync(index)) {
      response.status(404).type('text/plain').send('The console is not built: run npm run build');
      return;
    }
    response.setHeader('Cache-Control', 'no-cache');
    response.sendFile(index);
  });
}
