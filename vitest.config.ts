import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['node_modules/**', 'dist/**', 'demo/dist/**'],
    environment: 'node',
    testTimeout: 30_000,
  },
});
