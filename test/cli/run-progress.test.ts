/**
 * `cadre run`'s progress on stderr (src/hosts/cli/run-progress.ts): the live status line on a
 * terminal (rewritten in place, escaped), one line per step with `--verbose` elsewhere, JSON lines
 * with `--events`, nothing by default.
 */
import { describe, expect, it } from "vitest";
import { ERASE_LINE } from "../../src/core/terminal-text.ts";
import type { CliIo } from "../../src/hosts/cli/io.ts";
import { createProgress, statusLine } from "../../src/hosts/cli/run-progress.ts";
import type { RunRecord } from "../../src/runtime/runs.ts";
import { record } from "../runtime/record.ts";

function io(errTty: boolean): CliIo & { text: () => string } {
	let err = "";
	return { out: () => {}, err: (text) => void (err += text), isTty: false, errTty, errColumns: 60, env: {}, cwd: "/", text: () => err };
}

const running = (overrides: Partial<RunRecord> = {}) =>
	record({ state: "running", activity: "tool read", turns: 2, toolUses: 3, usage: { input: 1000, output: 234, cacheRead: 0, cacheWrite: 0, cost: 0 }, ...overrides });

describe("cadre run progress", () => {
	it("says activity, turns, tool uses, tokens and elapsed time: one run in detail, several as counts", () => {
		expect(statusLine([running()], 0, 4100)).toBe("explore-abc123 · tool read · 2 turns · 3 tool uses · 1.2k tokens · 4.1s");
		const many = [running(), running({ id: "b", state: "queued", turns: 0, toolUses: 0 }), running({ id: "c", state: "completed", turns: 1, toolUses: 0 })];
		expect(statusLine(many, 0, 1000)).toBe("1 running · 1 queued · 1 done · 3 turns · 3 tool uses · 3.7k tokens · 1.0s");
	});

	it("on a terminal, rewrites one line in place, escaped, cut to the width, and erases it at the end", () => {
		const stream = io(true);
		let clock = 0;
		const run = running({ activity: "tool \x1b]0;pwned\x07evil" });
		const progress = createProgress({ io: stream, verbose: false, events: false, runs: () => [run], now: () => clock });
		clock = 500;
		progress.child(run, { type: "tool_start", toolName: "evil", args: {} });
		progress.close();
		const text = stream.text();
		expect(text.startsWith(ERASE_LINE)).toBe(true);
		expect(text.endsWith(ERASE_LINE)).toBe(true);
		// No control character reaches the terminal but cadre's own erase sequence.
		expect(text.split(ERASE_LINE).join("")).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
		expect(text).toContain("\\x1b]0;pwned\\x07");
		expect(Math.max(...text.split(ERASE_LINE).map((line) => line.length))).toBeLessThanOrEqual(59);
	});

	it("without a terminal says nothing, unless --verbose (one line per step) or --events (JSON lines)", () => {
		const quiet = io(false);
		const run = running();
		const silent = createProgress({ io: quiet, verbose: false, events: false, runs: () => [run] });
		silent.lifecycle("cadre:started", { id: run.id, model: "stub/m" });
		silent.child(run, { type: "turn_start", turn: 1 });
		silent.close();
		expect(quiet.text()).toBe("");

		const loud = io(false);
		const verbose = createProgress({ io: loud, verbose: true, events: false, runs: () => [run], now: () => 1500 });
		verbose.lifecycle("cadre:started", { id: run.id, model: "stub/m" });
		verbose.child(run, { type: "tool_start", toolName: "read", args: { path: "a" } });
		verbose.close();
		expect(loud.text()).toBe("[   0.0s] explore-abc123 started (stub/m)\n[   0.0s] explore-abc123 tool read\n");

		const json = io(true);
		const events = createProgress({ io: json, verbose: false, events: true, runs: () => [run], now: () => 7 });
		events.lifecycle("cadre:completed", { id: run.id, status: "completed" });
		events.child(run, { type: "turn_end", turn: 1, toolCalls: 2 });
		events.close();
		expect(json.text().trim().split("\n").map((line) => JSON.parse(line))).toEqual([
			{ at: 7, event: "cadre:completed", id: run.id, status: "completed" },
			{ at: 7, event: "turn_end", id: run.id, turn: 1, toolCalls: 2 },
		]);
	});
});
