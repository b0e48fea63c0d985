/**
 * What the TUI shows of one run (issue 11): a plain, already-safe snapshot built from a live run
 * record or from a structured result (a tool result or notification read back from the session),
 * and the short forms every renderer shares — state icons, token counts, durations, the current
 * activity. Every string in a {@link RunView} has passed through `shown`, so renderers only style.
 */
import { budgetUsage } from "../../../runtime/budget-meter.ts";
import { type ResultDetails, runResult, sandboxBlocked, totalTokens } from "../../../runtime/result.ts";
import type { RunRecord } from "../../../runtime/runs.ts";
import { dotted, type Style, shown, type Tone } from "./text.ts";

/** One run as the TUI shows it. */
export interface RunView {
	id: string;
	type: string;
	description: string;
	/** A run state; `interrupted` for runs of an earlier process. */
	state: string;
	background: boolean;
	turns: number;
	maxTurns: number | null;
	toolUses: number;
	/** Every token the child's requests used (input, output, cache read and write). */
	tokens: number;
	/** How full the child's context window is, or null when unknown. */
	contextPercent: number | null;
	cost: number;
	/** Time spent running (not queued), or null before the run started. */
	runningMs: number | null;
	/** Time spent queued before it started (so far, while still queued). */
	queuedMs: number;
	/** What the child is doing now: "thinking", "read src/a.ts", …; null once ended. */
	activity: string | null;
	model: string | null;
	capability: string | null;
	persona: string | null;
	error: string | null;
	/** 1 for a child of the session, 2 for its children, … (the TUI indents by it). */
	depth?: number;
	/** A parent's collapsed counts of its subtree (`3 below: 2 running`), or null. */
	below?: string | null;
	/** Whether its tools ran in the OS sandbox; null for runs from before it. */
	sandboxed: boolean | null;
	/** What the sandbox blocked (the file tools'; bash's are not reported on Linux). */
	blocked: string[];
	/** The budget as used/limit (`4200/5000 tokens, $0.01/$0.05`), or null without one (issue 22). */
	budget: string | null;
}

/** A value shaped like stored result details (tool details and notifications read back from a session are untyped). */
export function isRunResult(value: unknown): value is ResultDetails {
	return value !== null && typeof value === "object" && typeof (value as ResultDetails).id === "string" && typeof (value as ResultDetails).status === "string";
}

/**
 * Stored details (slim since ADR 0188, every field before) with what only the run record holds
 * (receipt, requested vs used, warnings, tools), when the ended run is known; else as they are.
 */
export function withRecord(details: ResultDetails, run: RunRecord | undefined): ResultDetails {
	return run && run.id === details.id && isEnded(run.state) ? { ...runResult(run, Number.MAX_SAFE_INTEGER), ...details } : details;
}

/** States a run can no longer leave. */
export function isEnded(state: string): boolean {
	return state !== "queued" && state !== "running";
}

const ARGUMENT_KEYS = ["path", "file_path", "command", "pattern", "query", "url", "agent_id", "description", "prompt"];

/** The one argument that says most about a tool call (a path, a command, a pattern), on one line. */
export function shortArgument(args: unknown): string {
	if (args === null || typeof args !== "object") return typeof args === "string" ? shown(args.replace(/\s+/g, " ").trim()) : "";
	const record = args as Record<string, unknown>;
	const key = ARGUMENT_KEYS.find((name) => typeof record[name] === "string") ?? Object.keys(record).find((name) => typeof record[name] === "string");
	const value = key === undefined ? "" : (record[key] as string);
	return shown(value.replace(/\s+/g, " ").trim());
}

/** The activity line of a live run: the tool with a short argument, else "thinking", "starting", …. */
function activityOf(run: RunRecord): string | null {
	if (isEnded(run.state)) return null;
	if (run.currentTool) return [shown(run.currentTool.name), shortArgument(run.currentTool.args)].filter(Boolean).join(" ");
	return shown(run.activity);
}

/** A live run record as the TUI shows it at `now`. */
export function viewOfRecord(run: RunRecord, now: number = Date.now()): RunView {
	const started = run.startedAt;
	return {
		id: shown(run.id),
		type: shown(run.type),
		description: shown(run.description),
		state: run.state,
		background: run.background,
		turns: run.turns,
		maxTurns: run.config.maxTurns,
		toolUses: run.toolUses,
		tokens: totalTokens(run.usage),
		contextPercent: run.context?.percent ?? null,
		cost: run.usage.cost,
		runningMs: started === null ? null : (run.endedAt ?? now) - started,
		queuedMs: (started ?? run.endedAt ?? now) - run.createdAt,
		activity: activityOf(run),
		model: run.config.model === null ? null : shown(run.config.model),
		capability: run.config.capabilityMode,
		persona: run.config.persona === null ? null : shown(run.config.persona),
		error: run.error === null ? null : shown(run.error),
		depth: run.depth ?? 1,
		sandboxed: run.config.sandboxed ?? null,
		blocked: sandboxBlocked(run.diagnostics).map(shown),
		budget: run.budget ? shown(budgetUsage(run.budget)) || null : null,
	};
}

/** A structured result (tool details, a notification) as the TUI shows it. */
export function viewOfResult(result: ResultDetails, maxTurns: number | null = null): RunView {
	return {
		id: shown(String(result.id)),
		type: shown(String(result.type)),
		description: shown(String(result.description ?? "")),
		state: String(result.status),
		background: true,
		turns: result.turns ?? 0,
		maxTurns,
		toolUses: result.toolUses ?? 0,
		tokens: result.usage ? totalTokens(result.usage) : 0,
		contextPercent: null,
		cost: result.usage?.cost ?? 0,
		runningMs: result.durationMs ?? null,
		queuedMs: 0,
		activity: null,
		model: result.model ? shown(result.model) : null,
		capability: result.capabilityMode ? shown(result.capabilityMode) : null,
		persona: result.persona ? shown(result.persona) : null,
		error: result.error ? shown(result.error) : null,
		sandboxed: typeof result.sandboxed === "boolean" ? result.sandboxed : null,
		blocked: Array.isArray(result.sandboxBlocked) ? result.sandboxBlocked.map((attempt) => shown(String(attempt))) : [],
		budget: result.budget?.reserved && result.budget.used ? shown(budgetUsage(result.budget)) || null : null,
	};
}

/** `sandboxed` or `not sandboxed`; null for a run from before the sandbox. */
export function sandboxText(view: Pick<RunView, "sandboxed">): string | null {
	return view.sandboxed === null ? null : view.sandboxed ? "sandboxed" : "not sandboxed";
}

/** `the sandbox blocked 2: read: read ~/.ssh/id_rsa; …`, or null when it blocked nothing. */
export function blockedText(view: Pick<RunView, "blocked">): string | null {
	return view.blocked.length === 0 ? null : `the sandbox blocked ${view.blocked.length}: ${view.blocked.join("; ")}`;
}

const ICONS: Record<string, [string, Tone]> = {
	queued: ["◌", "muted"],
	running: ["●", "accent"],
	completed: ["✓", "success"],
	failed: ["✗", "error"],
	aborted: ["■", "warning"],
	stopped: ["■", "warning"],
	interrupted: ["!", "warning"],
};

/** The state's icon, coloured. */
export function stateIcon(state: string, style: Style): string {
	const [icon, tone] = ICONS[state] ?? ["?", "muted"];
	return style.fg(tone, icon);
}

/** `812`, `1.4k`, `12k`, `1.2M`. */
export function formatTokens(count: number): string {
	if (count < 1000) return String(Math.round(count));
	if (count < 10_000) return `${(count / 1000).toFixed(1)}k`;
	if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
	return `${(count / 1_000_000).toFixed(1)}M`;
}

/** `0.3s`, `12s`, `1m04s`, `1h02m`. */
export function formatDuration(ms: number): string {
	const seconds = Math.max(0, ms) / 1000;
	if (seconds < 10) return `${seconds.toFixed(1)}s`;
	if (seconds < 60) return `${Math.floor(seconds)}s`;
	const minutes = Math.floor(seconds / 60);
	if (minutes < 60) return `${minutes}m${String(Math.floor(seconds % 60)).padStart(2, "0")}s`;
	return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

/** `3 turns`, `3/20 turns`. */
export function formatTurns(view: Pick<RunView, "turns" | "maxTurns">): string {
	const noun = view.maxTurns === null ? (view.turns === 1 ? "turn" : "turns") : "turns";
	return view.maxTurns === null ? `${view.turns} ${noun}` : `${view.turns}/${view.maxTurns} ${noun}`;
}

/** `1 tool`, `5 tools`. */
export function formatTools(count: number): string {
	return `${count} tool${count === 1 ? "" : "s"}`;
}

/** `12k tok (9%)`, `812 tok`. */
export function formatTokensWithContext(view: Pick<RunView, "tokens" | "contextPercent">): string {
	const context = view.contextPercent === null ? "" : ` (${Math.round(view.contextPercent)}%)`;
	return `${formatTokens(view.tokens)} tok${context}`;
}

/** `$0.0123`, or null for a run that cost nothing. */
export function formatCost(cost: number): string | null {
	return cost > 0 ? `$${cost.toFixed(4)}` : null;
}

/**
 * The stats of a run on one line: turns, tools, tokens (with context %), cost, running time and,
 * apart, the time it waited in the queue — or, while queued, only how long it has waited.
 */
export function statsLine(view: RunView): string {
	return dotted(statsParts(view));
}

/** The parts of {@link statsLine}, for layouts that flow them over several lines. */
export function statsParts(view: RunView): string[] {
	if (view.state === "queued") return [`queued ${formatDuration(view.queuedMs)}`];
	return [
		formatTurns(view),
		formatTools(view.toolUses),
		formatTokensWithContext(view),
		formatCost(view.cost),
		view.budget === null ? null : `budget ${view.budget}`,
		view.runningMs === null ? null : formatDuration(view.runningMs),
		view.queuedMs >= 1000 ? `queued ${formatDuration(view.queuedMs)}` : null,
	].filter((part): part is string => part !== null);
}
