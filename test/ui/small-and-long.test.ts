/**
 * Issue 24's renderers without a terminal: legends that shorten before they are cut, the scroll
 * window and position, the list's window and where it opens, a page that opens at its top, the
 * run's own resolution in people's words, a viewer that holds its place while output arrives, a
 * queued run's task, widget rows in one order and one layout with ids and a spinner, the spawn row
 * that follows its run, and the done summary's tool count.
 */
import { KeybindingsManager, TUI_KEYBINDINGS } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { ConversationViewer, taskLines, viewerHeader } from "../../src/hosts/pi/ui/conversation-viewer.ts";
import { legendText } from "../../src/hosts/pi/ui/legend.ts";
import { runExplainLines } from "../../src/hosts/pi/ui/run-explain.ts";
import { viewOfRecord, viewOfResult } from "../../src/hosts/pi/ui/run-view.ts";
import { initialSelection, runsViewLines } from "../../src/hosts/pi/ui/runs-view.ts";
import { keepInView, moved, positionText } from "../../src/hosts/pi/ui/scroll.ts";
import { SPINNER_FRAMES, spinnerFrame } from "../../src/hosts/pi/ui/spinner.ts";
import { TextPage } from "../../src/hosts/pi/ui/text-page.ts";
import { plainStyle } from "../../src/hosts/pi/ui/text.ts";
import { startedLines, subagentCallLines, summaryLine } from "../../src/hosts/pi/ui/tool-rendering.ts";
import { runRows, widgetLines, widgetSnapshot } from "../../src/hosts/pi/ui/widget.ts";
import type { ChildMessage } from "../../src/runtime/pi/conversation.ts";
import type { RunRecord } from "../../src/runtime/runs.ts";
import { ansiStyle, expectSafeLines, NOW, record, result, withoutStyles } from "./support.ts";

const keys = new KeybindingsManager(TUI_KEYBINDINGS);
const text = (lines: string[]) => lines.map(withoutStyles).join("\n");
const UP = "\x1b[A";
const END = "\x1b[F";
const HOME = "\x1b[H";

describe("legends", () => {
	const items = [
		{ keys: "↑↓", label: "scroll", short: "" },
		{ keys: "s", label: "steer", keep: true },
		{ keys: "f", label: "fold/unfold", short: "fold" },
		{ keys: "esc", label: "back", keep: true },
	];
	it("whole when they fit; shortened, then without what may go, before the kept keys are cut", () => {
		expect(legendText(items, 80)).toBe("↑↓ scroll · s steer · f fold/unfold · esc back");
		expect(legendText(items, 35)).toBe("↑↓ · s steer · f fold · esc back");
		expect(legendText(items, 20)).toBe("s steer · esc back");
	});
});

describe("scrolling", () => {
	it("keeps the index in view, moving the window as little as it can", () => {
		expect(keepInView(0, 3, 5, 20)).toBe(0);
		expect(keepInView(0, 9, 5, 20)).toBe(5);
		expect(keepInView(5, 2, 5, 20)).toBe(2);
		expect(keepInView(18, 19, 5, 20)).toBe(15);
	});
	it("moves by lines, pages and to the ends, within the list", () => {
		expect(moved(3, { by: -1 }, 10, 4)).toBe(2);
		expect(moved(0, { by: -1 }, 10, 4)).toBe(0);
		expect(moved(3, { pages: 1 }, 10, 4)).toBe(7);
		expect(moved(3, { to: "end" }, 10, 4)).toBe(9);
		expect(moved(3, { to: "start" }, 10, 4)).toBe(0);
	});
	it("says where the window is", () => {
		expect(positionText(0, 8, 40)).toBe("1–8 of 40 · 20%");
		expect(positionText(32, 8, 40)).toBe("33–40 of 40 · 100%");
	});
});

const runs = (count: number, state: (i: number) => RunRecord["state"] = () => "completed") =>
	Array.from({ length: count }, (_, i) => record({ id: `general-purpose-r${i}`, description: `task ${i}`, state: state(i), createdAt: 1000 + i, endedAt: state(i) === "running" ? null : 90_000, currentTool: null }));

describe("the list in a short terminal", () => {
	it("shows the window of rows around the selection, the note and the keys, with the position in the title", () => {
		const views = runs(12).map((run) => viewOfRecord(run, NOW));
		const lines = runsViewLines(views, 10, 80, ansiStyle, "Stop general-purpose-r10? y stops it.", { top: 7, rows: 4 });
		expectSafeLines(lines, 80);
		const all = text(lines);
		expect(all).toContain("8–11 of 12");
		expect(all).not.toContain("general-purpose-r6 ");
		expect(lines.find((line) => withoutStyles(line).includes("general-purpose-r10"))).toMatch(/^\S*›/);
		expect(withoutStyles(lines.at(-2) ?? "")).toContain("y stops it");
		expect(withoutStyles(lines.at(-1) ?? "")).toContain("esc close");
	});
	it("opens on the first running run, else a queued one, else the newest", () => {
		expect(initialSelection(runs(5, (i) => (i === 3 ? "running" : "completed")).map((run) => viewOfRecord(run, NOW)))).toBe(3);
		expect(initialSelection(runs(5).map((run) => viewOfRecord(run, NOW)))).toBe(4);
	});
});

describe("a text page", () => {
	it("opens at its top, scrolls to its end, and always ends with the position and the keys", () => {
		const page = new TextPage(() => Array.from({ length: 30 }, (_, i) => `line ${i}`));
		const first = page.lines(60, 8, plainStyle);
		expect(first[0]).toBe("line 0");
		expect(first).toHaveLength(8);
		expect(first.at(-2)).toContain("1–6 of 30");
		expect(first.at(-1)).toContain("esc back");
		page.scroll({ to: "end" });
		const last = page.lines(60, 8, plainStyle);
		expect(last[5]).toBe("line 29");
		expect(last.at(-2)).toContain("100%");
	});
});

describe("e: the run's own resolution", () => {
	const run = record({
		background: true,
		config: { ...record().config, persona: "ghost", runInBackground: true, rolePromptWarning: "the role prompt is long" },
		trace: {
			persona: { value: "ghost", layer: "request", source: "request", candidates: [{ layer: "definition", value: "reviewer", source: "/agents/explore.md:3", outcome: "overridden" }] },
			rolePromptWarning: { value: "the role prompt is long", layer: "role", source: "/agent/roles/r.md", candidates: [] },
			maxTurns: { value: 20, layer: "default", source: "default", candidates: [] },
		},
	});
	for (const width of [40, 80, 160]) {
		it(`at ${width}: the run's values in words, where they came from and what they beat`, () => {
			const lines = runExplainLines(run, width, ansiStyle);
			expectSafeLines(lines, width);
			const all = text(lines).replace(/\s+/g, " ");
			expect(all).toContain("how this run was set up");
			expect(all).toContain("persona: ghost ← the request");
			expect(all).toContain("beat the definition (/agents/explore.md:3) reviewer");
			expect(all).toContain("role warning: the role prompt is long");
			expect(all).toContain("background: yes");
			expect(all).not.toMatch(/rolePromptWarning|runInBackground/);
		});
	}
});

/** A viewer over a run whose conversation grows. */
function viewerOver(run: RunRecord, messages: ChildMessage[]) {
	const viewer = new ConversationViewer({
		host: { get: () => run, messages: () => [...messages], steer: async () => {}, stop: async () => run, worktreeReport: async () => "" },
		runId: run.id,
		theme: plainStyle,
		keybindings: keys,
		requestRender: () => {},
	});
	return viewer;
}

const said = (i: number): ChildMessage => ({ role: "assistant", text: `answer ${i}`, thinking: "", toolCalls: [], stopReason: "stop", errorMessage: null });

describe("the viewer while output arrives", () => {
	it("holds its place when scrolled back, counts what is below and how far down it is; End follows again", () => {
		const messages = Array.from({ length: 20 }, (_, i) => said(i));
		const run = record();
		const viewer = viewerOver(run, messages);
		viewer.lines(80, 12);
		for (let i = 0; i < 3; i++) viewer.handleInput(UP);
		const before = viewer.lines(80, 12);
		expect(before.join("\n")).toMatch(/── 3 more below · \d+–\d+ of 20 · 85% · end follows ──/);
		messages.push(said(20), said(21));
		viewer.refresh();
		const after = viewer.lines(80, 12);
		expect(after[2]).toBe(before[2]);
		expect(after.join("\n")).toContain("── 5 more below");
		viewer.handleInput(END);
		expect(viewer.lines(80, 12).join("\n")).toContain("answer 21");
		viewer.handleInput(HOME);
		expect(viewer.lines(80, 12)[2]).toBe("answer 0");
	});
	it("keeps `esc back` at 60 and 80 columns", () => {
		const viewer = viewerOver(record(), [said(0)]);
		for (const width of [60, 80]) expect(viewer.lines(width, 12).at(-1)).toContain("esc back");
	});
	it("a queued run: its header says queued once, its task shows, and steering says it is held", () => {
		const run = record({ state: "queued", startedAt: null, currentTool: null, activity: "queued", prompt: "task c2: look at the tests" });
		const header = text(viewerHeader(run, 160, plainStyle));
		expect(header.match(/queued/g)).toHaveLength(1);
		expect(text(taskLines(run, 80, plainStyle))).toContain("› task c2: look at the tests");
		const viewer = viewerOver(run, []);
		viewer.handleInput("s");
		expect(viewer.lines(160, 14).join("\n")).toContain("held until the run starts");
	});
});

describe("widget rows", () => {
	const three = () => [
		record({ id: "general-purpose-a", description: "alpha", createdAt: 1000, startedAt: 2000, state: "completed", endedAt: 99_000, currentTool: null }),
		record({ id: "general-purpose-b", description: "beta", createdAt: 2000, startedAt: 1500 }),
		record({ id: "general-purpose-c", description: "gamma", createdAt: 3000, startedAt: 1000 }),
	].map((run) => ({ ...run, background: true }));
	it("keep the order the runs were created in, finished or not", () => {
		expect(widgetSnapshot(three(), "background", NOW).rows.map((view) => view.id)).toEqual(["general-purpose-a", "general-purpose-b", "general-purpose-c"]);
	});
	for (const width of [60, 80, 160]) {
		it(`at ${width}: every row has the same layout and its id`, () => {
			const lines = widgetLines(widgetSnapshot(three(), "background", NOW), width, ansiStyle, NOW);
			expectSafeLines(lines, width);
			// The headline carries the stats from 120 columns on, never below: the same for every row.
			const headlines = three().map((run) => runRows(viewOfRecord(run, NOW), width, plainStyle)[0] ?? "");
			for (const headline of headlines) expect(/ tok/.test(headline), headline).toBe(width >= 120);
			for (const id of ["general-purpose-a", "general-purpose-b", "general-purpose-c"]) expect(text(lines)).toContain(id);
		});
	}
	it("a running row spins with the clock; a finished one does not", () => {
		const [done, running] = three();
		const at = (now: number) => runRows(viewOfRecord(running as RunRecord, NOW), 160, plainStyle, { now })[0]?.[0];
		expect(SPINNER_FRAMES).toContain(at(0));
		expect(at(0)).not.toBe(at(200));
		expect(spinnerFrame(0)).toBe(at(0));
		expect(runRows(viewOfRecord(done as RunRecord, NOW), 160, plainStyle, { now: 0 })[0]?.[0]).toBe("✓");
	});
	it("takes at most the lines it is given, whole rows, and counts the rest", () => {
		const many = Array.from({ length: 6 }, (_, i) => ({ ...record({ id: `general-purpose-m${i}`, createdAt: i }), background: true }));
		const lines = widgetLines(widgetSnapshot(many, "background", NOW), 160, plainStyle, NOW, 5);
		expect(lines).toHaveLength(5);
		expect(lines.at(-1)).toBe("… 4 more");
	});
	it("a nested run's rows indent by depth", () => {
		expect(runRows(viewOfRecord(three()[1] as RunRecord, NOW), 80, plainStyle, { depth: 1 })[0]).toMatch(/^ {2}\S/);
	});
});

describe("tool rows", () => {
	it("a foreground row keeps its description and shows its id at 70 columns", () => {
		const live = viewOfRecord(record({ id: "general-purpose-f1", description: "f1 task" }), NOW);
		const lines = text(subagentCallLines({ description: "f1 task" }, live, 70, plainStyle));
		expect(lines).toContain("f1 task");
		expect(lines).toContain("general-purpose-f1");
	});
	it("a background spawn's row follows its run", () => {
		const started = result({ state: "running", endedAt: null });
		const now = viewOfRecord(record({ state: "completed", endedAt: 99_000, currentTool: null }), NOW);
		expect(text(startedLines(started, 160, plainStyle))).toContain("(running)");
		expect(text(startedLines(started, 160, plainStyle, now))).toContain("(completed)");
	});
	it("the done summary counts the tools", () => {
		expect(summaryLine(viewOfResult(result()), plainStyle)).toContain("5 tools");
	});
});
