import { fileURLToPath } from 'node:url';
import { createLogger, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Two warnings that are expected, so a first `npm start` prints none: the fonts are served by the
// API at /app/fonts (not part of this build), and the SDK's `import('node:fs')` runs only under
// Node.js (an upload from a file path), never in the browser.
const EXPECTED = [/IBMPlexSans-\w+\.woff referenced in/, /Module "node:fs" has been externalized/];
const logger = createLogger('warn');
const warn = logger.warn.bind(logger);
const warnOnce = logger.warnOnce.bind(logger);
logger.warn = (msg, options) => {
  if (!EXPECTED.some((re) => re.test(msg))) warn(msg, options);
};
logger.warnOnce = (msg, options) => {
  if (!EXPECTED.some((re) => re.test(msg))) warnOnce(msg, options);
};

// The app is served by the API at /app (apps/api/src/platform/http/web-app.ts): hashed file names
// under /app/assets, no inline script (the server's Content-Security-Policy refuses them).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  customLogger: logger,
  plugins: [react()],
  resolve: {
    // the SDK from its sources: the app needs no SDK build first, and shares its types
    alias: { '@ledgerlens/sdk': fileURLToPath(new URL('../../packages/sdk/src/index.ts', import.meta.url)) },
  },
  // pdf.js's worker (review page only) is an ES module: bundled as one, loaded with { type: 'module' }
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
