import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		reporters: ["default", "./test/support/summary-reporter.ts"],
		setupFiles: ["test/support/isolated-env.ts"],
		testTimeout: 30_000,
		hookTimeout: 30_000,
	},
});
