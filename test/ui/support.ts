/**
 * Shared pieces of the TUI renderer tests: run records and results with hostile text, a style that
 * writes real escape codes (so widths are measured with styles in), and the checks every renderer
 * must pass at every width — no line wider than the width, no control character from child text.
 */
import { visibleWidth } from "@earendil-works/pi-tui";
import { expect } from "vitest";
import { type RunResult, runResult } from "../../src/runtime/result.ts";
import type { RunRecord } from "../../src/runtime/runs.ts";
import type { Style, Tone } from "../../src/hosts/pi/ui/text.ts";
import { record as baseRecord } from "../runtime/record.ts";

/** The widths every renderer is tested at. */
export const WIDTHS = [40, 80, 160] as const;

/** Text a hostile child or definition could produce: clear screen, set title, move the cursor, bidi override. */
export const HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x1b[10;10H\u202egnp.exe\x9b31m";

const TONES: Record<Tone, number> = { accent: 36, muted: 90, dim: 37, success: 32, error: 31, warning: 33, toolTitle: 35, toolOutput: 37, text: 39, customMessageLabel: 35 };

/** A style that writes SGR codes like pi's theme does. */
export const ansiStyle: Style = {
	fg: (tone, text) => `\x1b[${TONES[tone]}m${text}\x1b[39m`,
	bold: (text) => `\x1b[1m${text}\x1b[22m`,
};

/** SGR colour/bold codes (what a theme writes) removed; anything else left. */
export function withoutStyles(line: string): string {
	return line.replace(/\x1b\[[0-9;]*m/g, "");
}

/** Every line fits `width`, and nothing but styles is a control sequence. */
export function expectSafeLines(lines: readonly string[], width: number): void {
	for (const line of lines) {
		expect(visibleWidth(line), `too wide at ${width}: ${JSON.stringify(line)}`).toBeLessThanOrEqual(width);
		expect(withoutStyles(line), `control character in ${JSON.stringify(line)}`).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
	}
}

/** A running run record (the unit tests' factory with live fields); times are relative to {@link NOW}. */
export function record(overrides: Partial<RunRecord> = {}): RunRecord {
	const base = baseRecord();
	return baseRecord({
		description: "review the math module",
		state: "running",
		config: { ...base.config, model: "faux/child-model", persona: "reviewer", tools: ["read", "grep"], maxTurns: 20 },
		trace: {},
		ignored: [],
		createdAt: 30_000,
		startedAt: 36_000,
		endedAt: null,
		lastEventAt: 99_000,
		activity: "tool read",
		currentTool: { name: "read", args: { path: "src/math.js" } },
		context: { tokens: 12_000, window: 128_000, percent: 9.4 },
		turns: 3,
		toolUses: 5,
		usage: { input: 10_000, output: 2_400, cacheRead: 0, cacheWrite: 0, cost: 0.0123 },
		text: null,
		transcript: "/home/me/.pi/agent/sessions/--home-me-project--/cadre/01a230f0-4b51-7247/2026-12-01T09-29-48-884Z_01a230f0.jsonl",
		...overrides,
	});
}

/** The structured result of a finished run. */
export function result(overrides: Partial<RunRecord> = {}): RunResult {
	return runResult(record({ state: "completed", endedAt: 40_000, currentTool: null, activity: "completed", text: "The review found two bugs.", ...overrides }), 20_000);
}

/** `now` for the records above. */
export const NOW = 100_000;
