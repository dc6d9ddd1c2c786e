import { defineConfig } from 'vitest/config';

// The unit tests of the routing core only: what `npm run mutation:core` runs against each mutant.
// Integration and e2e tests start servers and would make every mutant cost seconds.
export default defineConfig({
  test: {
    include: [
      'test/unit/failures/**/*.test.ts',
      'test/unit/router/**/*.test.ts',
      'test/unit/breaker/**/*.test.ts',
      'test/unit/capabilities/**/*.test.ts',
    ],
    testTimeout: 20_000,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
