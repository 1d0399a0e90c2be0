import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['node_modules/**', 'dist/**', 'demo/dist/**', '**/*.e2e.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
  },
});
