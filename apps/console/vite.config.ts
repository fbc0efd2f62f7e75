import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The web console: a static single-page app that the gateway serves at `/` (GATEWAY_CONSOLE_DIR). Vite compiles the
 * TSX itself (oxc, the automatic JSX runtime); `npm run build:console` writes `dist/apps/console`.
 */
export default defineConfig({
  root: here,
  base: './',
  resolve: {
    // Of @ioa/gateway-client the console runs only the resumable event-stream reader (fetch + eventsource-parser);
    // the rest of the library renders goals for terminals and would pull the contract classes into the bundle.
    alias: {
      '@ioa/gateway-client': fileURLToPath(new URL('../../libs/gateway-client/src/sse-client.ts', import.meta.url)),
    },
  },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/apps/console', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2048,
  },
  logLevel: 'warn',
});
