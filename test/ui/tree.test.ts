/**
 * The tree in the TUI (issue 21): nested runs in tree order under the run that spawned them,
 * indented one step per level, a parent's collapsed counts, in the widget, the `/subagents` view,
 * the child list and the text listing.
 */
import { describe, expect, it } from "vitest";
import { childListLines, listedRuns } from "../../src/hosts/pi/ui/child-list.ts";
import { childIndex, collapsedCounts, inTreeOrder, treeIndent } from "../../src/runtime/run-tree.ts";
import { viewOfRecord } from "../../src/hosts/pi/ui/run-view.ts";
import { runsViewLines } from "../../src/hosts/pi/ui/runs-view.ts";
import { plainStyle } from "../../src/hosts/pi/ui/text.ts";
import { widgetLines, widgetSnapshot } from "../../src/hosts/pi/ui/widget.ts";
import { subagentsCommand } from "../../src/hosts/pi/commands.ts";
import type { RunRegistry } from "../../src/runtime/runs.ts";
import { ansiStyle, expectSafeLines, NOW, record, WIDTHS, withoutStyles } from "./support.ts";

/** lead-1 (background) → explore-a (running), explore-b (queued) → deep-1 under explore-a; other-1 beside. */
const tree = () => [
	record({ id: "lead-1", type: "lead", description: "lead the work", createdAt: 1 }),
	record({ id: "other-1", description: "a sibling tree", createdAt: 2 }),
	record({ id: "explore-a", description: "part a", parentId: "lead-1", rootId: "lead-1", depth: 2, background: true, createdAt: 3 }),
	record({ id: "explore-b", description: "part b", parentId: "lead-1", rootId: "lead-1", depth: 2, state: "queued", startedAt: null, activity: "queued", createdAt: 4 }),
	record({ id: "deep-1", type: "deep", description: "deeper", parentId: "explore-a", rootId: "lead-1", depth: 3, background: false, createdAt: 5 }),
];

describe("tree order", () => {
	it("puts each run's children right under it, in creation order", () => {
		expect(inTreeOrder(tree()).map((run) => run.id)).toEqual(["lead-1", "explore-a", "deep-1", "explore-b", "other-1"]);
	});

	it("lists a run whose parent is not listed as a tree of its own, and every run once even when records disagree", () => {
		const runs = [record({ id: "a", parentId: "b", createdAt: 1 }), record({ id: "b", parentId: "a", createdAt: 2 }), record({ id: "c", parentId: "gone", createdAt: 3 })];
		expect(inTreeOrder(runs).map((run) => run.id).sort()).toEqual(["a", "b", "c"]);
	});

	it("indents two columns per level and counts what runs below a parent", () => {
		expect([treeIndent(1), treeIndent(2), treeIndent(3), treeIndent(undefined)]).toEqual(["", "  ", "    ", ""]);
		expect(collapsedCounts({ id: "lead-1" }, childIndex(tree()))).toBe("3 below: 2 running, 1 queued");
		expect(collapsedCounts({ id: "other-1" }, childIndex(tree()))).toBeNull();
		// The widget counts over one index of the runs (a long session's history is scanned once per update).
		const index = childIndex(tree());
		expect(collapsedCounts({ id: "lead-1" }, index)).toBe("3 below: 2 running, 1 queued");
		expect(collapsedCounts({ id: "explore-a" }, index)).toBe("1 below: 1 running");
		expect(collapsedCounts({ id: "deep-1" }, index)).toBeNull();
	});

	it("keeps a run's place among many siblings: creation order, each child under its parent", () => {
		// Listed newest first; every third run spawned by r0.
		const runs = Array.from({ length: 300 }, (_, i) => record({ id: `r${i}`, parentId: i % 3 === 2 ? "r0" : null, createdAt: i })).reverse();
		const order = inTreeOrder(runs).map((run) => run.id);
		const spawned = Array.from({ length: 100 }, (_, k) => `r${3 * k + 2}`);
		expect(order.slice(0, 101)).toEqual(["r0", ...spawned]);
		expect(order.slice(101, 104)).toEqual(["r1", "r3", "r4"]);
		expect(new Set(order).size).toBe(300);
	});
});

describe("the tree in the TUI", () => {
	for (const width of WIDTHS) {
		it(`widget at ${width}: nested rows indented under their lead, the lead's collapsed counts`, () => {
			const lines = widgetLines(widgetSnapshot(tree(), "background", NOW), width, ansiStyle);
			expectSafeLines(lines, width);
			const plain = lines.map(withoutStyles);
			const head = (text: string) => plain.findIndex((line) => line.includes(text));
			expect(head("lead the work")).toBeLessThan(head("part a"));
			expect(head("part a")).toBeLessThan(head("deeper"));
			// The foreground grandchild shows with its tree in the background mode.
			expect(plain[head("deeper")]).toMatch(/^ {4}\S/);
			expect(plain[head("part a")]).toMatch(/^ {2}\S/);
			if (width >= 80) expect(plain[head("lead the work")]).toContain("(3 below: 2 running, 1 queued)");
		});
	}

	it("/subagents view: the ID column indents nested runs in tree order", () => {
		const views = inTreeOrder(tree()).map((run) => viewOfRecord(run, NOW));
		const lines = runsViewLines(views, 0, 160, plainStyle).map(withoutStyles);
		const row = (id: string) => lines.find((line) => line.includes(id)) ?? "";
		expect(lines.findIndex((line) => line.includes("deep-1"))).toBeLessThan(lines.findIndex((line) => line.includes("explore-b")));
		expect(row("explore-a").indexOf("explore-a") - row("lead-1").indexOf("lead-1")).toBe(2);
		expect(row("deep-1").indexOf("deep-1") - row("lead-1").indexOf("lead-1")).toBe(4);
	});

	it("child list: live runs in tree order, indented", () => {
		const views = listedRuns(tree()).map((run) => viewOfRecord(run, NOW));
		expect(views.map((view) => view.id)).toEqual(["lead-1", "explore-a", "deep-1", "explore-b", "other-1"]);
		const lines = childListLines(views, null, 80, plainStyle);
		expect(lines[1]).toMatch(/^ {4}\S+ explore-a/);
	});

	it("/subagents list (text): indented under the parent", async () => {
		const runs = tree();
		const registry = { list: () => runs } as unknown as RunRegistry;
		const text = await subagentsCommand("list", { registry, cwd: "/tmp", explain: () => { throw new Error("unused"); } } as never);
		const lines = text.split("\n");
		expect(lines.map((line) => line.split(/\s+/).filter(Boolean)[0])).toEqual(["lead-1", "explore-a", "deep-1", "explore-b", "other-1"]);
		expect(lines[2]).toMatch(/^ {4}deep-1/);
	});
});
