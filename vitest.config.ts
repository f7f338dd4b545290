import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"
import { filesByProject, needs, projectNames } from "./scripts/TestProjects.ts"

// The tests are split by what they cost to run (scripts/TestProjects.ts): `vitest run` runs every project,
// `vitest run --project unit` (npm run test:unit) only the pure tests, with no server, build or browser.
const files = filesByProject()

export default defineConfig({
  // The workspace packages run from their sources (`src`), not their builds (`dist`): see decision 0006.
  // Vitest's own default without `module` (which picks bundler-only builds, such as the AWS SDK's `dist-es`).
  ssr: { resolve: { conditions: ["@analytics/source", ...defaultServerConditions.filter((condition) => condition !== "module")] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: projectNames.map((name) => ({
      extends: true,
      test: {
        name,
        include: [...files[name]],
        // Servers, certificates and the viewer's build, only for the projects that need them.
        globalSetup: needs[name].length === 0 ? [] : ["./scripts/vitest-global-setup.ts"],
        // The pure tests share their workers: a worker runs file after file and evaluates the modules they share
        // once (62 s isolated, 17 s shared, on 2 cores under load). A unit test must leave no global state behind
        // (the one `vi.stubGlobal` undoes itself in `afterEach`; sessions and messages set are set back); they pass
        // in any order (`--sequence.shuffle.files`). A file that cannot be made so belongs in `integration`.
        ...(name === "unit" ? { isolate: false } : {})
      }
    }))
  }
})
