/**
 * The `/subagents` view and the conversation viewer (issue 11 item 4) as line renderers at widths
 * 40, 80 and 160 — padded columns, running and queued time apart, messages with tool calls and
 * their arguments, folded tool results, the worktree report — plus argument completion.
 */
import { describe, expect, it } from "vitest";
import { subagentsCompletions } from "../../src/hosts/pi/ui/completions.ts";
import { conversationLines, viewerHeader } from "../../src/hosts/pi/ui/conversation-viewer.ts";
import { viewOfRecord } from "../../src/hosts/pi/ui/run-view.ts";
import { worktreeReportText } from "../../src/hosts/pi/ui/run-worktree-report.ts";
import { runsViewLines } from "../../src/hosts/pi/ui/runs-view.ts";
import { plainStyle, wrapped } from "../../src/hosts/pi/ui/text.ts";
import type { ChildMessage } from "../../src/runtime/pi/conversation.ts";
import { ansiStyle, expectSafeLines, HOSTILE, NOW, record, WIDTHS, withoutStyles } from "./support.ts";

const text = (lines: string[]) => lines.map(withoutStyles).join("\n");

const runs = () => [
	record(),
	record({ id: "general-purpose-q1", type: "general-purpose", description: `summarize${HOSTILE}`, state: "queued", startedAt: null, currentTool: null }),
	record({ id: "explore-old", description: "read the notes", state: "stopped", endedAt: 50_000, currentTool: null }),
];

const conversation: ChildMessage[] = [
	{ role: "user", text: `task delta ${HOSTILE}` },
	{ role: "assistant", text: "", thinking: "look at the file", toolCalls: [{ id: "c1", name: "read", args: { path: `src/math.js${HOSTILE}` } }], stopReason: "toolUse", errorMessage: null },
	{ role: "toolResult", toolCallId: "c1", toolName: "read", text: `line one${HOSTILE}\nline two\nline three`, isError: false },
	{ role: "user", text: "focus on tests" },
	{ role: "assistant", text: `The divide function has a bug.${HOSTILE}`, thinking: "", toolCalls: [], stopReason: "stop", errorMessage: null },
];

describe("/subagents list", () => {
	for (const width of WIDTHS) {
		it(`at ${width}: a row per run with its state, id and description, the selected one marked, the keys`, () => {
			const lines = runsViewLines(
				runs().map((run) => viewOfRecord(run, NOW)),
				1,
				width,
				ansiStyle,
			);
			expectSafeLines(lines, width);
			const all = text(lines);
			for (const field of ["sub-agent runs", "explore-abc123", "general-purpose-q1", "explore-old", "●", "◌", "■", "enter open"]) expect(all, `${field} at ${width}`).toContain(field);
			expect(lines.find((line) => withoutStyles(line).includes("general-purpose-q1"))).toMatch(/^\S*›/);
			if (width >= 80) for (const field of ["review the math module", "running", "stopped"]) expect(all, `${field} at ${width}`).toContain(field);
			if (width >= 160) for (const field of ["RUNNING", "QUEUED", "1m04s", "6.0s", "TOKENS", "12k"]) expect(all, `${field} at ${width}`).toContain(field);
		});
	}

	it("columns are padded: every row's description starts in the same column", () => {
		const lines = runsViewLines(runs().map((run) => viewOfRecord(run, NOW)), 0, 160, plainStyle).slice(1, 5);
		const starts = lines.map((line) => line.indexOf(line.includes("DESCRIPTION") ? "DESCRIPTION" : line.includes("review") ? "review" : line.includes("summarize") ? "summarize" : "read the"));
		expect(new Set(starts).size).toBe(1);
	});

	it("no runs yet says so", () => {
		expect(text(runsViewLines([], 0, 40, plainStyle))).toContain("No sub-agent runs");
	});
});

describe("conversation viewer", () => {
	for (const width of WIDTHS) {
		it(`at ${width}: messages, tool calls with their arguments, folded results, the header's stats`, () => {
			const lines = [...viewerHeader(record(), width, ansiStyle), ...conversationLines(conversation, width, ansiStyle)];
			expectSafeLines(lines, width);
			const all = text(lines);
			for (const field of ["explore-abc123", "› task delta", "→ read", "src/math.js", "← read: 3 lines", "› focus on tests", "The divide function"]) expect(all, `${field} at ${width}`).toContain(field);
			expect(all).not.toContain("line two");
		});

		it(`at ${width}: the header names the run's trace when telemetry traced it, and has no trace line otherwise`, () => {
			const traced = viewerHeader(record({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736" }), width, ansiStyle);
			expectSafeLines(traced, width);
			expect(text(traced)).toContain(width >= 80 ? "trace 4bf92f3577b34da6a3ce929d0e0e4736" : "trace 4bf92f");
			expect(text(viewerHeader(record(), width, ansiStyle))).not.toContain("trace");
		});

		it(`at ${width}: unfolded, tool results show whole`, () => {
			const lines = conversationLines(conversation, width, ansiStyle, true);
			expectSafeLines(lines, width);
			expect(text(lines)).toContain("line two");
		});
	}
});

describe("worktree report", () => {
	it("names the branch, worktree and summary, the branch's state and how to apply it; a run without one says so", () => {
		const run = record({ isolation: { isolation: "worktree", branch: "cadre/explore-abc123", worktreePath: "/wt/explore-abc123", base: "abc", summary: `kept${HOSTILE}` } });
		const report = worktreeReportText(run, {
			id: "explore-abc123",
			branch: "cadre/explore-abc123",
			commit: "0123456789abcdef",
			subject: "cadre: explore",
			date: null,
			applied: false,
			fromUncommitted: false,
			worktreePath: "/wt/explore-abc123",
			worktreeExists: true,
			locked: false,
			base: "abc",
			hasWork: true,
			owner: null,
			interrupted: false,
			uncommitted: [],
			ignored: [],
			state: "unapplied",
		});
		for (const width of WIDTHS) expectSafeLines(wrapped(report, width), width);
		for (const field of ["branch: cadre/explore-abc123", "worktree: /wt/explore-abc123", "state: unapplied", "0123456789", "/subagents worktrees apply explore-abc123"]) expect(report).toContain(field);
		expect(worktreeReportText(record(), null)).toContain("has no worktree (isolation: none)");
	});
});

describe("/subagents completion", () => {
	const source = {
		runs: () => [
			{ id: "explore-abc123", state: "running", description: "review" },
			{ id: "explore-old", state: "completed", description: "notes" },
		],
		types: () => ["explore", "general-purpose", "plan"],
	};
	const values = (prefix: string) => subagentsCompletions(prefix, source)?.map((item) => item.value) ?? null;

	it("completes subcommands, types after explain, live run ids after stop, any run id after transcript, worktree actions and ids", () => {
		expect(values("")).toEqual(["list", "stop", "explain", "transcript", "worktrees"]);
		expect(values("st")).toEqual(["stop"]);
		expect(values("explain ")).toEqual(["explain explore", "explain general-purpose", "explain plan"]);
		expect(values("explain ge")).toEqual(["explain general-purpose"]);
		expect(values("stop ")).toEqual(["stop explore-abc123"]);
		expect(values("transcript explore-")).toEqual(["transcript explore-old", "transcript explore-abc123"]);
		expect(values("worktrees ")).toEqual(["worktrees list", "worktrees apply", "worktrees clean"]);
		expect(values("worktrees apply explore-o")).toEqual(["worktrees apply explore-old"]);
		expect(values("nothing ")).toBeNull();
	});
});
