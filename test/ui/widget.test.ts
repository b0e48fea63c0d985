/**
 * The live widget and footer status (issue 11 item 1) as pure renderers at widths 40, 80 and 160:
 * every field present, no line wider than the width, no control sequence from child text; which
 * runs get rows by `ui.widget`; finished rows linger, then go; the queued count.
 */
import { describe, expect, it } from "vitest";
import { createLiveFeed } from "../../src/hosts/pi/ui/live-feed.ts";
import { createWidget, statusText, widgetLines, widgetSnapshot } from "../../src/hosts/pi/ui/widget.ts";
import { plainStyle } from "../../src/hosts/pi/ui/text.ts";
import { ansiStyle, expectSafeLines, HOSTILE, NOW, record, WIDTHS } from "./support.ts";

const runs = () => [
	record(),
	record({ id: "general-purpose-q1", type: "general-purpose", description: "summarize the layout", state: "queued", startedAt: null, currentTool: null, activity: "queued" }),
	record({ id: "explore-done", description: "read the notes", state: "completed", startedAt: 90_000, endedAt: 98_000, currentTool: null, activity: "completed" }),
	record({ id: "explore-fg", description: "a foreground child", background: false }),
];

describe("widget rows", () => {
	for (const width of WIDTHS) {
		it(`at ${width} columns shows every field of a running row, the finished row and the queued count`, () => {
			const lines = widgetLines(widgetSnapshot(runs(), "background", NOW), width, ansiStyle);
			expectSafeLines(lines, width);
			const text = lines.map((line) => line.replace(/\x1b\[[0-9;]*m/g, "")).join("\n");
			for (const field of ["●", "explore", "review the math", "3/20 turns", "5 tools", "12k tok (9%)", "$0.0123", "1m04s", "queued 6.0s", "↳ read src/math.js", "✓", "read the notes", "1 queued"]) {
				expect(text, `${field} at ${width}`).toContain(field);
			}
			expect(text).not.toContain("a foreground child");
		});
	}

	it("a row's child text cannot move the cursor, clear the screen or set the title", () => {
		const hostile = record({ type: `explore${HOSTILE}`, description: HOSTILE, currentTool: { name: `read${HOSTILE}`, args: { path: HOSTILE } } });
		for (const width of WIDTHS) {
			const lines = widgetLines(widgetSnapshot([hostile], "background", NOW), width, ansiStyle);
			expectSafeLines(lines, width);
			expect(lines.join("\n")).toContain("\\x1b[2J");
		}
	});

	it("ui.widget all adds foreground runs; off shows nothing but keeps the footer count", () => {
		const all = widgetLines(widgetSnapshot(runs(), "all", NOW), 160, plainStyle).join("\n");
		expect(all).toContain("a foreground child");
		const off = widgetSnapshot(runs(), "off", NOW);
		expect(statusText(off)).toBe("cadre: 1 running · 1 queued");
		// What pi is told: with `off`, the footer status and no widget at all.
		const calls: string[] = [];
		const feed = createLiveFeed();
		const widget = createWidget({
			ui: { setWidget: (_key, content) => calls.push(content ? "widget" : "no widget"), setStatus: (_key, text) => calls.push(`status ${text}`) },
			runs,
			mode: () => "off",
			feed,
			now: () => NOW,
		});
		expect(calls).toEqual(["status cadre: 1 running · 1 queued"]);
		widget.dispose();
		feed.dispose();
	});

	it("finished rows linger a few seconds, then go; nothing left shows nothing", () => {
		const done = [record({ state: "completed", endedAt: NOW - 1000, currentTool: null })];
		expect(widgetSnapshot(done, "background", NOW).rows).toHaveLength(1);
		expect(widgetSnapshot(done, "background", NOW + 10_000).rows).toHaveLength(0);
		expect(widgetLines(widgetSnapshot(done, "background", NOW + 10_000), 80, plainStyle)).toEqual([]);
		expect(statusText(widgetSnapshot(done, "background", NOW))).toBeUndefined();
	});

	it("the footer status counts running and queued background runs", () => {
		expect(statusText(widgetSnapshot(runs(), "background", NOW))).toBe("cadre: 1 running · 1 queued");
		expect(statusText(widgetSnapshot(runs(), "all", NOW))).toBe("cadre: 2 running · 1 queued");
	});

	it("elapsed is running time; the time spent queued is shown apart", () => {
		const line = widgetLines(widgetSnapshot([record()], "background", NOW), 160, plainStyle)[0] ?? "";
		// created 30 s, started 36 s, now 100 s: 64 s running, 6 s queued
		expect(line).toContain("1m04s");
		expect(line).toContain("queued 6.0s");
	});
});
