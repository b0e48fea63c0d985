/**
 * A run whose verify still fails (issue 23) is shown loudly: `VERIFY FAILED` on the collapsed
 * notification row and tool row at every width, and the expanded detail has the command, the exit
 * code, the repair turn and the end of the output.
 */
import { describe, expect, it } from "vitest";
import { notificationLines } from "../../src/hosts/pi/ui/notification-renderer.ts";
import { ansiStyle, expectSafeLines, result, WIDTHS, withoutStyles } from "./support.ts";
import { resultLines } from "../../src/hosts/pi/ui/tool-rendering.ts";

const failed = {
	command: "npm test",
	exitCode: 1,
	ok: false,
	durationMs: 1234,
	outputTail: "FAIL test/a.test.ts\n1 failed",
	repair: { steered: true, worked: false, skipped: null, first: null },
};

describe("a failed verify in the TUI", () => {
	for (const width of WIDTHS) {
		it(`is flagged on the collapsed rows at width ${width}`, () => {
			const run = result({ verify: failed });
			const note = notificationLines({ runs: [run] }, "fallback", false, width, ansiStyle);
			expectSafeLines(note, width);
			expect(note.map(withoutStyles).join("\n")).toContain("VERIFY FAILED");
			const row = resultLines(run, false, width, ansiStyle);
			expect(withoutStyles(row[0] ?? "")).toContain("VERIFY FAILED");
		});
	}

	it("expanded: the command, the exit code, the repair turn and the output's end", () => {
		const text = resultLines(result({ verify: failed }), true, 160, ansiStyle).map(withoutStyles).join("\n");
		expect(text).toContain("verify FAILED");
		expect(text).toContain("✗ npm test · exit 1 · 1.2s");
		expect(text).toContain("repair turn sent; verify still fails");
		expect(text).toContain("1 failed");
		const withReceipt = result({ receipt: { filesFrom: "worktree-diff", files: [{ path: "done.txt", added: 1, removed: 0 }], commands: [{ command: "npm test", exitCode: 0, durationMs: 2100 }], commandCount: 1, failedCommands: 0, toolUses: { bash: 1 } } });
		const receipt = resultLines(withReceipt, true, 80, ansiStyle);
		expectSafeLines(receipt, 80);
		expect(receipt.map(withoutStyles).join("\n")).toMatch(/receipt \(observed by cadre\)[\s\S]*done\.txt \+1\/-0[\s\S]*\$ npm test → exit 0 2\.1s[\s\S]*tool uses: bash 1/);
		const passed = resultLines(result({ verify: { ...failed, ok: true, exitCode: 0, repair: null } }), false, 160, ansiStyle).map(withoutStyles).join("\n");
		expect(passed).not.toContain("VERIFY FAILED");
	});
});
