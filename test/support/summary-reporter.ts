/**
 * Prints one plain closing line after vitest's own summary — `tests: N passed, N failed, N skipped`
 * — the form CI reads in any language. Failed modules (a file that did not load) count as failures.
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
	onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
		let passed = 0;
		let failed = unhandledErrors.length;
		let skipped = 0;
		for (const module of modules) {
			if (module.state() === "failed" && [...module.children.allTests()].length === 0) failed++;
			for (const test of module.children.allTests()) {
				const state = test.result().state;
				if (state === "passed") passed++;
				else if (state === "failed") failed++;
				else skipped++;
			}
		}
		process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
	}
}
