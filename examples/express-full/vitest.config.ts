import { defineConfig } from "vitest/config"

// Run standalone (`npm test` here); from the repository root its own config applies.
export default defineConfig({
  test: {
    // The program starts in seconds (migrations on a fresh database); exports and mails take a second or two each.
    testTimeout: 60_000,
    hookTimeout: 90_000
  }
})
