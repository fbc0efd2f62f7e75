import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express, Request, Response } from 'express';

/**
 * The web console: static files (a single-page app with hash routes) served at `/`, beside the API. They are public
 * (the console asks for an API key and sends it on every API call). Without a build, `/` says how to make one.
 */
export function mountConsole(app: NestExpressApplication, consoleDir: string): void {
  if (existsSync(join(consoleDir, 'index.html'))) {
    app.useStaticAssets(consoleDir, { index: 'index.html', maxAge: '1h', setHeaders: noCacheForIndex });
    return;
  }
  const express: Express = app.getHttpAdapter().getInstance();
  express.get('/', (_request: Request, response: Response) => {
    response.status(404).json({
      statusCode: 404,
      error: 'Not Found',
      message: `The web console is not built (${consoleDir} has no index.html): run npm run build:console`,
    });
  });
}

/** The page itself is read anew each time, so a new build's asset names (content hashes) are picked up. */
function noCacheForIndex(response: Response, path: string): void {
  if (path.endsWith('index.html')) response.setHeader('cache-control', 'no-cache');
}
