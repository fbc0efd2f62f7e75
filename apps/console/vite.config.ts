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
      // Of the contracts the console takes types (erased) and, at run time, only the slug rule, whose file imports
      // nothing: the contract classes stay out of the bundle. A value from elsewhere fails the build by name.
      '@ioa/contracts': fileURLToPath(new URL('../../libs/contracts/src/common/slug.ts', import.meta.url)),
    },
  },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/apps/console', import.meta.url)),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2048,
    rolldownOptions: {
      // Mantine marks each module "use client" for React Server Components; a browser bundle has no server part, so
      // the ~780 warnings that the directive is dropped say nothing and buried real ones in the build log.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  logLevel: 'warn',
});
