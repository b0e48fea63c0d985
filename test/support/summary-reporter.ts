/**
 * Prints one plain closing line after vitest's own summary — `tests: N passed, N failed, N skipped`
 * — the form CI reads in any language, after one `skipped: <test>: <note>` line per test that
 * skipped itself with a note. Failed modules (a file that did not load) count as failures.
 */
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
	onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
		let passed = 0;
		let failed = unhandledErrors.length;
		let skipped = 0;
		const notes: string[] = [];
		for (const module of modules) {
			if (module.state() === "failed" && [...module.children.allTests()].length === 0) failed++;
			for (const test of module.children.allTests()) {
				const result = test.result();
				if (result.state === "passed") passed++;
				else if (result.state === "failed") failed++;
				else {
					skipped++;
					if (result.state === "skipped" && result.note) notes.push(`skipped: ${test.fullName}: ${result.note}\n`);
				}
			}
		}
		process.stdout.write(`\n${notes.join("")}tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
	}
}
