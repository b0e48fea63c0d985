/** Fitting text to a terminal's width (src/core/wrap.ts, issue 19). */
import { describe, expect, it } from "vitest";
import { fitTable, wrapLine } from "../../src/core/wrap.ts";

describe("wrapLine", () => {
	it("breaks at spaces, indents continuations, cuts a word longer than the width, and leaves null width alone", () => {
		const text = "refused: model-unresolvable — no layer names a usable model: definition names sonet, which pi does not know";
		const lines = wrapLine(text, 40, "  ");
		expect(lines.every((line) => line.length <= 40)).toBe(true);
		expect(lines.slice(1).every((line) => line.startsWith("  "))).toBe(true);
		expect(lines.map((line) => line.trim()).join(" ")).toBe(text);
		expect(wrapLine("x".repeat(50), 20)).toEqual(["x".repeat(20), "x".repeat(20), "x".repeat(10)]);
		expect(wrapLine(text, null)).toEqual([text]);
	});
});

describe("fitTable", () => {
	it("narrows the widest column until rows fit, wrapping its cells", () => {
		const rows = [["field", "value", "from", "beat"], ["tools", Array.from({ length: 30 }, (_, i) => `tool${i}`).join(", "), "definition .pi/agents/a.md:3", "request read (ignored)"]];
		const lines = fitTable(rows, 80);
		expect(lines.length).toBeGreaterThan(2);
		expect(lines.every((line) => line.length <= 80)).toBe(true);
		expect(lines.join(" ")).toContain("tool29");
		expect(fitTable(rows, null)).toHaveLength(2);
	});
});
