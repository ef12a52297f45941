/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into the Python package (datahub/spa/dist), served at /app/ by Flask and nginx.
export default defineConfig({
  base: '/app/',
  plugins: [react()],
  build: {
    outDir: '../datahub/spa/dist',
    emptyOutDir: true,
    // No inline scripts or styles: the service's Content-Security-Policy forbids them.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 600,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8000' } },
  test: {
    environment: 'jsdom',
    setupFiles: ['src/test/setup.ts'],
    css: false,
    restoreMocks: true,
    // Lazily loaded screens take a while on a loaded 2-core machine (CI runs tests in parallel).
    testTimeout: 20_000,
  },
});
