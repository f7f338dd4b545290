import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

export default defineConfig({
  // The workspace packages run from their sources (`src`), not their builds (`dist`): see decision 0006.
  // Vitest's own default without `module` (which picks bundler-only builds, such as the AWS SDK's `dist-es`).
  ssr: { resolve: { conditions: ["@analytics/source", ...defaultServerConditions.filter((condition) => condition !== "module")] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    globalSetup: ["./scripts/vitest-global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
