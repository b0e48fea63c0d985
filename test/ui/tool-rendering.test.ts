/**
 * The tool rows (issue 11 item 2) and the notification renderer (item 3, issue 15) at widths 40,
 * 80 and 160: the fields present, no line wider than the width, nothing from child text that a
 * terminal acts on; the expanded view holds the detail the collapsed one leaves out — from the run
 * record when the stored details are slim (ADR 0188).
 */
import { describe, expect, it } from "vitest";
import { notificationLines } from "../../src/hosts/pi/ui/notification-renderer.ts";
import { viewOfRecord } from "../../src/hosts/pi/ui/run-view.ts";
import { plainStyle } from "../../src/hosts/pi/ui/text.ts";
import { activityLines, createToolRenderers, fetchCallLines, fetchResultLines, resultLines, startedLines, steerCallLines, subagentCallLines, textResultLines } from "../../src/hosts/pi/ui/tool-rendering.ts";
import { resultDetails } from "../../src/runtime/result.ts";
import type { RunRecord } from "../../src/runtime/runs.ts";
import { ansiStyle, expectSafeLines, HOSTILE, NOW, record, result, WIDTHS, withoutStyles } from "./support.ts";

const text = (lines: string[]) => lines.map(withoutStyles).join("\n");

const detailed = () =>
	result({
		text: `The review found two bugs.\nSecond line of the answer.${HOSTILE}`,
		trace: {
			model: { value: "faux/child-model", layer: "definition", source: "d", candidates: [{ layer: "request", value: "nope/x", source: "request", outcome: "unresolvable" }] },
			description: { value: "review", layer: "request", source: "request", candidates: [] },
		} as never,
		diagnostics: [{ severity: "warning", file: "agents/explore.md", line: 3, column: 1, code: "tool-dropped", message: `bash dropped${HOSTILE}` }],
		isolation: { isolation: "worktree", summary: `kept branch cadre/explore-abc123${HOSTILE}` },
	});

describe("subagent tool row", () => {
	for (const width of WIDTHS) {
		it(`at ${width}: while running, the compact line (two when narrow) with type, description, id, turns, tools, tokens and elapsed, then the activity`, () => {
			const live = viewOfRecord(record({ background: false }), NOW);
			const lines = [...subagentCallLines({ subagent_type: "explore", description: "review the math module" }, live, width, ansiStyle), ...activityLines(live, width, ansiStyle)];
			expectSafeLines(lines, width);
			expect(lines).toHaveLength(width >= 160 ? 2 : 3);
			const all = text(lines);
			for (const field of ["subagent", "explore", "review the", "↳ read src/math.js"]) expect(all).toContain(field);
			if (width >= 80) for (const field of ["review the", "3/20 turns", "5 tools", "12k tok", "1m04s"]) expect(all).toContain(field);
		});

		it(`at ${width}: when done, a one-line summary; expanded adds differing request values, warnings, isolation, transcript and the answer`, () => {
			const collapsed = resultLines(detailed(), false, width, ansiStyle, "ctrl+o to expand");
			expectSafeLines(collapsed, width);
			expect(collapsed).toHaveLength(1);
			const summary = text(collapsed);
			for (const field of ["✓", "completed"]) expect(summary).toContain(field);
			if (width >= 80) for (const field of ["3 turns", "5 tools", "12k tok", "4.0s"]) expect(summary).toContain(field);
			if (width >= 160) for (const field of ["faux/child-model", "read-only", "reviewer"]) expect(summary).toContain(field);
			const expanded = resultLines(detailed(), true, width, ansiStyle);
			expectSafeLines(expanded, width);
			const all = text(expanded);
			for (const field of ["requested vs used", "model: nope/x", "unresolvable", "warnings", "tool-dropped", "isolation", "kept branch", "transcript", "The review found two bugs.", "Second line"]) {
				expect(all, `${field} at ${width}`).toContain(field);
			}
			expect(all).not.toContain("description: review");
		});
	}

	it("a run whose contract was not kept says so collapsed, and expanded lists each output and the repair turn once", () => {
		const broken = () => {
			const base = detailed();
			const contract = {
				ok: false,
				outputs: [
					{ name: "report", ok: true, path: "/w/report.md" },
					{ name: `findings${HOSTILE}`, ok: false, path: "/w/findings.json", reason: `findings.json does not exist${HOSTILE}` },
				],
				repair: { steered: true, worked: false, skipped: null },
			};
			const row = { field: "contract", requested: ["report", "findings"], used: ["report"], note: "findings: findings.json does not exist; a repair turn did not fix it" };
			return { ...base, contract, requestedVsUsed: [...base.requestedVsUsed, row] };
		};
		for (const width of WIDTHS) {
			const collapsed = resultLines(broken(), false, width, ansiStyle);
			expectSafeLines(collapsed, width);
			if (width >= 80) expect(text(collapsed)).toContain("contract not kept");
			const expanded = resultLines(broken(), true, width, ansiStyle);
			expectSafeLines(expanded, width);
			// Wrapped lines joined again: what the person reads across the line breaks.
			const all = text(expanded).replace(/\s+/g, " ");
			const fields = width >= 80 ? ["contract not kept", "✓ report", "✗ findings", "does not exist", "repair turn sent; the contract is still not kept"] : ["contract not kept", "✓ report", "✗", "findings", "repair turn sent"];
			for (const field of fields) expect(all, `${field} at ${width}`).toContain(field);
			// Once, in its own section: not again as a requested-vs-used row.
			expect(all).not.toContain("contract: ");
		}
		const kept = { ...detailed(), contract: { ok: true, outputs: [{ name: "report", ok: true, path: "/w/report.md" }], repair: null } };
		expect(text(resultLines(kept, false, 160, ansiStyle))).not.toContain("contract");
		expect(text(resultLines(kept, true, 160, ansiStyle))).toContain("contract kept");
	});

	it("the call line before the run exists, and a background spawn's answer", () => {
		for (const width of WIDTHS) {
			const call = subagentCallLines({ subagent_type: `explore${HOSTILE}`, description: HOSTILE, run_in_background: true }, null, width, ansiStyle);
			expectSafeLines(call, width);
			const started = startedLines(result({ state: "queued", endedAt: null, startedAt: null }), width, ansiStyle);
			expectSafeLines(started, width);
			expect(text(started)).toContain("explore-abc123");
		}
		expect(text(subagentCallLines({ description: "x", run_in_background: true }, null, 160, plainStyle))).toContain("general-purpose · x · background");
	});
});

describe("get_subagent_result and steer_subagent rows", () => {
	for (const width of WIDTHS) {
		it(`at ${width}: ids, finished summaries, live progress, the steer message`, () => {
			const call = fetchCallLines({ agent_id: ["explore-abc123", "b-1"], wait: true, timeout: 30 }, width, ansiStyle);
			const running = result({ id: "b-1", state: "running", endedAt: null });
			const lines = fetchResultLines([detailed(), running], (id) => (id === "b-1" ? viewOfRecord(record({ id: "b-1" }), NOW) : null), false, width, ansiStyle);
			const steer = steerCallLines({ agent_id: "explore-abc123", message: `focus on divide()${HOSTILE}` }, width, ansiStyle);
			const refusal = textResultLines(`No sub-agent run with id nope.${HOSTILE}`, true, false, width, ansiStyle);
			for (const block of [call, lines, steer, refusal]) expectSafeLines(block, width);
			expect(text(call)).toContain("get_subagent_result");
			expect(text(lines)).toContain("✓ completed");
			expect(text(lines)).toContain("↳ read src/math.js");
			expect(text(steer)).toContain("steer_subagent explore-abc123");
		});
	}
});

describe("notification renderer", () => {
	const batch = () => ({
		runs: [detailed(), result({ id: "general-purpose-x1", type: "general-purpose", description: HOSTILE, state: "failed", text: null, error: `model request failed${HOSTILE}` })],
	});

	for (const width of WIDTHS) {
		it(`at ${width}: each child of a batch with icon, type, description, turns, tools, tokens, duration and a preview`, () => {
			const lines = notificationLines(batch(), "fallback", false, width, ansiStyle, "ctrl+o to expand");
			expectSafeLines(lines, width);
			const all = text(lines);
			for (const field of ["2 background sub-agents finished", "✓", "explore", "review the math", "3 turns", "5 tools", "12k tok", "4.0s", "The review found", "✗", "general-purpose", "model request"]) {
				expect(all, `${field} at ${width}`).toContain(field);
			}
			expect(all).not.toContain("[cadre-notification]");
			expect(all).not.toContain("get_subagent_result");
		});

		it(`at ${width}: expanded shows each whole result`, () => {
			const lines = notificationLines(batch(), "fallback", true, width, ansiStyle);
			expectSafeLines(lines, width);
			expect(text(lines)).toContain("Second line");
		});
	}

	it("a single-run message (details written before batching) renders as a batch of one", () => {
		const all = text(notificationLines(detailed(), "fallback", false, 80, plainStyle));
		expect(all).toContain("background sub-agent finished");
		expect(all).toContain("explore · review the math module");
	});

	it("details it cannot read fall back to the message text, made safe", () => {
		const lines = notificationLines(undefined, `Background sub-agent x completed.${HOSTILE}`, false, 40, ansiStyle);
		expectSafeLines(lines, 40);
	});
});

describe("stored details slimmed to what the rows need (ADR 0188, 0193)", () => {
	const overrides = {
		text: "The review found two bugs.\nSecond line of the answer.",
		trace: {
			model: { value: "faux/child-model", layer: "definition", source: "d", candidates: [{ layer: "request", value: "nope/x", source: "request", outcome: "unresolvable" }] },
		} as never,
		receipt: { filesFrom: "tool-calls" as const, files: [{ path: "src/math.js", added: 2, removed: 1 }], commands: [], commandCount: 0, failedCommands: 0, toolUses: { edit: 1 } },
	};
	const ended = () => record({ state: "completed", endedAt: 40_000, currentTool: null, activity: "completed", ...overrides });
	const host = (run: RunRecord | undefined) => ({ get: (id: string) => (run?.id === id ? run : undefined), runOfToolCall: () => undefined, track: () => {} });
	const context = { toolCallId: "call-1", state: {}, isError: false, invalidate: () => {} };

	it("collapsed, slim details completed from the record show the same summary line as the whole result (a session written before); without the record, the counts", () => {
		const whole = result(overrides);
		const collapsed = (run: RunRecord | undefined, details: unknown) =>
			text((createToolRenderers(host(run)).subagent.renderResult({ content: [{ type: "text", text: "t" }], details }, { expanded: false, isPartial: false }, plainStyle, context) as { render(width: number): readonly string[] }).render(160) as string[]);
		expect(collapsed(ended(), resultDetails(whole))).toBe(text(resultLines(whole, false, 160, plainStyle)));
		const without = collapsed(undefined, resultDetails(whole));
		expect(without).not.toContain("faux/child-model");
		expect(without).toContain("3 turns · 5 tools");
	});

	it("expanded, the row reads what the details leave out from the run record; without the record it shows what the details hold", () => {
		const whole = result(overrides);
		const slim = resultDetails(whole);
		const render = (run: RunRecord | undefined, details: unknown) =>
			text((createToolRenderers(host(run)).subagent.renderResult({ content: [{ type: "text", text: `${whole.id} · completed\n\n${whole.text}` }], details }, { expanded: true, isPartial: false }, plainStyle, context) as { render(width: number): readonly string[] }).render(80) as string[]);
		const withRun = render(ended(), slim);
		for (const field of ["requested vs used", "unresolvable", "receipt (observed by cadre)", "src/math.js +2/-1", "Second line"]) expect(withRun, field).toContain(field);
		const without = render(undefined, slim);
		expect(without).not.toContain("receipt (observed by cadre)");
		// Without the record, the answer is the result's text (the details leave it out).
		expect(without).toContain("Second line");
		// Details stored whole (an older session) render in full, with or without the record.
		expect(render(undefined, whole)).toBe(withRun);
	});

	it("an expanded notification child reads the record the same way", () => {
		const slim = resultDetails(result(overrides));
		const run = ended();
		const all = text(notificationLines({ runs: [slim] }, "fallback", true, 80, plainStyle, "", (id) => (id === run.id ? run : undefined)));
		expect(all).toContain("receipt (observed by cadre)");
		expect(text(notificationLines({ runs: [slim] }, "fallback", true, 80, plainStyle))).not.toContain("receipt (observed by cadre)");
	});
});
