/**
 * The TUI shows a run's budget as used/limit (issue 22): in the child list under the editor, in
 * `/subagents`' BUDGET column and in the stats line; a run without a budget shows none.
 */
import { describe, expect, it } from "vitest";
import { childListLines } from "../../src/hosts/pi/ui/child-list.ts";
import { runExplainLines } from "../../src/hosts/pi/ui/run-explain.ts";
import { statsLine, viewOfRecord, viewOfResult } from "../../src/hosts/pi/ui/run-view.ts";
import { runsViewLines } from "../../src/hosts/pi/ui/runs-view.ts";
import { plainStyle } from "../../src/hosts/pi/ui/text.ts";
import { runResult } from "../../src/runtime/result.ts";
import { NOW, record } from "./support.ts";

const budget = {
	limit: { tokens: 5000, cost: 0.05, time: null },
	reserved: { tokens: 5000, cost: 0.04, time: null },
	used: { tokens: 4200, cost: 0.012, time: 3 },
	source: "request",
	clamped: ["cost" as const],
	stoppedBy: null,
	warned: true,
};

describe("budget in the TUI rows", () => {
	it("child list, /subagents and the stats line show used/limit of the reserved budget", () => {
		const view = viewOfRecord(record({ budget }), NOW);
		expect(view.budget).toBe("4200/5000 tokens, $0.012/$0.04");
		expect(childListLines([view], null, 200, plainStyle, NOW).join("\n")).toContain("4200/5000 tokens, $0.012/$0.04");
		const table = runsViewLines([view], 0, 220, plainStyle);
		expect(table.join("\n")).toContain("BUDGET");
		expect(table.join("\n")).toContain("4200/5000 tokens, $0.012/$0.04");
		expect(statsLine(view)).toContain("budget 4200/5000 tokens");
		// From a structured result read back from the session, the same.
		expect(viewOfResult(runResult(record({ budget, state: "stopped" }), 1000)).budget).toBe("4200/5000 tokens, $0.012/$0.04");
	});

	it("e (the run's own resolution) shows what it reserved, what was clamped and what it used", () => {
		const lines = runExplainLines(record({ budget }), 200, plainStyle);
		expect(lines).toContain("  budget reserved: 5000 tokens, $0.04 (clamped to what remained: cost); used 4200/5000 tokens, $0.012/$0.04");
	});

	it("a run without a budget shows none", () => {
		const view = viewOfRecord(record(), NOW);
		expect(view.budget).toBeNull();
		expect(statsLine(view)).not.toContain("budget");
		expect(runExplainLines(record(), 200, plainStyle).join("\n")).not.toContain("budget reserved");
		expect(runsViewLines([view], 0, 220, plainStyle).join("\n")).not.toMatch(/\d+\/\d+ tokens|BUDGET/);
	});
});
