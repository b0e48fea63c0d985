/**
 * What `cadre run` writes on stderr while runs go on (docs/cli-run.md "Progress"): on a terminal, one
 * live status line rewritten in place (activity, turns, tool uses, tokens, elapsed); with
 * `--verbose` and no terminal, one line per step; with `--events`, the run's events as JSON lines.
 * Names, activities and tool names come from files, extensions and the child: shown escaped.
 */
import { ERASE_LINE, safeLine } from "../../core/terminal-text.ts";
import type { ChildEvent } from "../../runtime/pi/child-events.ts";
import { budgetUsage } from "../../runtime/budget-meter.ts";
import { counted, totalTokens } from "../../runtime/result.ts";
import type { RunRecord } from "../../runtime/runs.ts";
import type { CliIo } from "./io.ts";

/** How progress is shown. */
export interface ProgressOptions {
	io: CliIo;
	verbose: boolean;
	events: boolean;
	/** The runs to summarize (the registry's). */
	runs(): readonly RunRecord[];
	now?(): number;
}

/** Receives what happens; `close` erases the live line (call before the final output). */
export interface ProgressReporter {
	lifecycle(event: string, payload: Record<string, unknown>): void;
	child(run: RunRecord, event: ChildEvent): void;
	/** Write output of its own (a batch result on stdout, a warning) above the live line. */
	above(write: () => void): void;
	close(): void;
}

const REDRAW_MS = 100;
const TICK_MS = 1000;

/** `1.2k` for 1234. */
function shortCount(value: number): string {
	return value >= 1000 ? `${(value / 1000).toFixed(1)}k` : String(value);
}

function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(1)}s`;
}

/** `2 turns · 3 tool uses · 1.2k tokens · 4.1s` */
function totalsLine(turns: number, toolUses: number, used: number, took: string): string {
	return `${counted(turns, "turn")} · ${counted(toolUses, "tool use")} · ${shortCount(used)} tokens · ${took}`;
}

/** One run's totals, its time from start to end (or now), or "not started"; with a budget its used/limit (`(spent)` when it stopped the run). */
export function runTotals(run: Pick<RunRecord, "turns" | "toolUses" | "usage" | "startedAt" | "endedAt" | "budget" | "stopReason">): string {
	const took = run.startedAt === null ? "not started" : seconds((run.endedAt ?? Date.now()) - run.startedAt);
	const budget = run.budget ? ` · budget ${budgetUsage(run.budget)}${run.stopReason === "budget" ? " (spent)" : ""}` : "";
	return `${totalsLine(run.turns, run.toolUses, totalTokens(run.usage), took)}${budget}`;
}

/** The status of the runs at `now`: one run in detail, several as counts. */
export function statusLine(runs: readonly RunRecord[], startedAt: number, now: number): string {
	const turns = runs.reduce((sum, run) => sum + run.turns, 0);
	const tools = runs.reduce((sum, run) => sum + run.toolUses, 0);
	const used = runs.reduce((sum, run) => sum + totalTokens(run.usage), 0);
	const totals = totalsLine(turns, tools, used, seconds(now - startedAt));
	if (runs.length === 1) {
		const run = runs[0] as RunRecord;
		return `${run.id} · ${run.activity} · ${totals}`;
	}
	const running = runs.filter((run) => run.state === "running").length;
	const queued = runs.filter((run) => run.state === "queued").length;
	const ended = runs.length - running - queued;
	return `${running} running · ${queued} queued · ${ended} done · ${totals}`;
}

function childLine(event: ChildEvent): string | null {
	switch (event.type) {
		case "turn_start":
			return `turn ${event.turn}`;
		case "tool_start":
			return `tool ${event.toolName}`;
		case "tool_end":
			return event.isError ? `tool ${event.toolName} failed` : null;
		case "assistant":
			return event.errorMessage ? `model error: ${event.errorMessage}` : null;
		default:
			return null;
	}
}

/** The reporter for this invocation's streams and flags. */
export function createProgress(options: ProgressOptions): ProgressReporter {
	const { io } = options;
	const now = options.now ?? Date.now;
	const startedAt = now();
	// A live line only on a terminal, and never mixed into an event stream.
	const live = io.errTty === true && !options.events;
	const verbose = options.verbose && !live && !options.events;
	let shown = false;
	let drawnAt = 0;
	let timer: NodeJS.Timeout | null = null;
	const width = Math.max(20, (io.errColumns ?? 80) - 1);

	const draw = () => {
		drawnAt = now();
		const text = safeLine(statusLine(options.runs(), startedAt, drawnAt));
		io.err(`${ERASE_LINE}${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
		shown = true;
	};
	const erase = () => {
		if (shown) io.err(ERASE_LINE);
		shown = false;
	};
	const changed = () => {
		if (!live) return;
		if (!timer) {
			timer = setInterval(draw, TICK_MS);
			timer.unref?.();
		}
		if (now() - drawnAt >= REDRAW_MS) draw();
	};
	const stamp = () => `[${seconds(now() - startedAt).padStart(7)}]`;
	const emit = (record: Record<string, unknown>) => io.err(`${JSON.stringify({ at: now(), ...record })}\n`);

	return {
		lifecycle(event, payload) {
			if (options.events) emit({ event, ...payload });
			if (verbose) {
				const detail = event === "cadre:failed" && payload.error ? `: ${String(payload.error)}` : event === "cadre:started" ? ` (${String(payload.model)})` : "";
				io.err(`${stamp()} ${safeLine(`${String(payload.id)} ${event.replace(/^cadre:/, "")}${detail}`)}\n`);
			}
			changed();
		},
		child(run, event) {
			if (options.events) emit({ event: event.type, id: run.id, ...event, type: undefined });
			const text = verbose ? childLine(event) : null;
			if (text) io.err(`${stamp()} ${safeLine(`${run.id} ${text}`)}\n`);
			changed();
		},
		above(write) {
			const wasShown = shown;
			erase();
			write();
			if (wasShown) draw();
		},
		close() {
			if (timer) clearInterval(timer);
			timer = null;
			erase();
		},
	};
}
