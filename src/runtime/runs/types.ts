/**
 * The run registry's public data (spec 04 "Runs"): a run's record and states, the plan it is
 * created from, the isolation hooks around it, the record writer, the lifecycle event names and
 * the registry's interface. Types only; `src/runtime/runs.ts` re-exports them.
 */
import type { Budget } from "../../core/budget.ts";
import type { Diagnostic } from "../../core/diagnostics.ts";
import type { EffectiveConfig, IgnoredRequestValue, Trace } from "../../resolve/types.ts";
import type { RunBudget } from "../budget-meter.ts";
import type { Contract } from "../contract.ts";
import type { Owner } from "../owner.ts";
import type { Receipt } from "../receipt.ts";
import type { VerifyOutcome } from "../verify-run.ts";
import type { ChildEvent } from "../pi/child-events.ts";
import type { ChildContext, ChildHandle, ChildUsage } from "../pi/child-session.ts";
import type { ChildMessage } from "../pi/conversation.ts";

/**
 * `interrupted` is never reached by a run of this process: it is the state of a record loaded
 * from disk that was queued or running when its owner process ended (ADR 0068).
 */
export type RunState = "queued" | "running" | "completed" | "failed" | "aborted" | "stopped" | "interrupted";
/** How a run of this process ends (never `interrupted`). */
export type TerminalState = "completed" | "failed" | "aborted" | "stopped";

/** What the isolation step reports into the result (owned by the isolation area; opaque here). */
export type IsolationReport = Record<string, unknown>;

/**
 * The one place isolation plugs into a run: `prepare` runs before the child session is created and
 * may refuse the spawn (throw); `finish` runs after any terminal state and its report goes into
 * the result.
 */
export interface IsolationHooks {
	/** Returns the absolute cwd the child must use instead of the planned one, or null. */
	prepare(run: RunRecord): Promise<{ cwd: string | null; report: IsolationReport | null }>;
	finish(run: RunRecord, state: TerminalState): Promise<IsolationReport | null>;
	/**
	 * The top of the git working tree holding run `run`'s `cwd`, or null outside one (the receipt's
	 * `git status`): the first answer is the one `prepare` found, later ones the cached facts.
	 */
	repoRoot?(run: RunRecord, cwd: string): Promise<string | null>;
	/**
	 * What run `run`'s child must wait for before a tool call (what `prepare` left to be done off the
	 * spawn path, e.g. a use record, started now if it has not started; the same promise at every
	 * call), or null when nothing is left. Asked for at each of the child's tool calls.
	 */
	ready?(run: RunRecord): Promise<void> | null;
}

/** Everything a run needs, decided before it is created (resolution, prompt, child factory). */
export interface SpawnPlan {
	/** Canonical type name. */
	type: string;
	description: string;
	prompt: string;
	config: EffectiveConfig;
	trace: Partial<Trace>;
	ignored: IgnoredRequestValue[];
	diagnostics: Diagnostic[];
	/** Absolute cwd the child starts in (before isolation). */
	cwd: string;
	/** The run this one resumes, or null. */
	resumeOf: string | null;
	/** Settings `contracts.repair`: steer a child once when its contract is not kept (default true). */
	repairContract?: boolean;
	/** Creates the child session in `cwd` (continuing `resumeFile` when set). */
	createChild(run: RunRecord, cwd: string, resumeFile: string | null): Promise<ChildHandle>;
}

/** One run, as `/subagents`, results and the service see it. Mutated only by this module. */
export interface RunRecord {
	id: string;
	type: string;
	description: string;
	prompt: string;
	/** Absolute directory the child starts in before isolation (the request's cwd or the parent's). */
	plannedCwd: string;
	background: boolean;
	state: RunState;
	config: EffectiveConfig;
	trace: Partial<Trace>;
	ignored: IgnoredRequestValue[];
	diagnostics: Diagnostic[];
	resumeOf: string | null;
	/** The parent session id the run belongs to (null when the host has none). */
	parentSession: string | null;
	/** The run that spawned this one (issue 21), or null for a child of the root session. */
	parentId: string | null;
	/** The first run of its tree: the root session's child it descends from (itself at depth 1). */
	rootId: string;
	/** Its depth: a child of the root session is 1, its children 2 (records from before nesting: 1). */
	depth: number;
	/** The directory its spawner worked in when it spawned it (a worktree child's branches from there); null at depth 1. */
	spawnerCwd?: string | null;
	/** Its own usage plus every descendant's, set when it ends (absent before: its own usage is all there is). */
	treeUsage?: ChildUsage;
	/** How many runs of its subtree ran (children, grandchildren, …), set when it ends. */
	descendants?: number;
	/** The process that runs (or ran) it. */
	owner: Owner;
	createdAt: number;
	startedAt: number | null;
	endedAt: number | null;
	lastEventAt: number;
	/** What the child is doing now ("thinking", "tool read", …). */
	activity: string;
	/** The tool call the child is running now, with its arguments; null between tools. */
	currentTool: { name: string; args: unknown } | null;
	/** How full the child's context window is after its last answer; null until known. */
	context: ChildContext | null;
	turns: number;
	toolUses: number;
	usage: ChildUsage;
	/** The child's final text (uncapped; results cap it). */
	text: string | null;
	/** The outputs and structured result checked at the run's end (ADR 0099); null when it promised none. */
	contract: Contract | null;
	/** The value the child's `submit_result` accepted, or null. */
	structured: unknown;
	error: string | null;
	transcript: string | null;
	isolation: IsolationReport | null;
	/** The `max_turns` ceiling ended the run. */
	limitReached: boolean;
	/** Why a `stopped` run stopped when cadre stopped it: `budget` (its budget was spent, ADR 0176); null otherwise. */
	stopReason?: "budget" | null;
	/** The run's budget (issue 22): limit, reserved, used, source; null when it has none. */
	budget?: RunBudget | null;
	/** The parent fetched the result (suppresses the notification). */
	fetched: boolean;
	/** The completion notification went out. */
	notified: boolean;
	/** Why the last write of the run's record failed (it will not outlive the session), or null. */
	persistError: string | null;
	/** The W3C trace id of the run's `invoke_agent` span when telemetry is on (src/telemetry/, ADR 0145). */
	traceId?: string | null;
	/** The run's own `verify`, run by cadre after the child (issue 23, ADR 0117); absent or null without one. */
	verify?: VerifyOutcome | null;
	/** What cadre saw the child do (issue 23, ADR 0118): files, bash commands, tool uses; absent or null before the end. */
	receipt?: Receipt | null;
}

/** Progress a foreground run streams to its tool call. */
export type ProgressListener = (run: RunRecord, event: ChildEvent) => void;

/** Lifecycle event names on pi's event bus (spec 04 "Operator control"). */
export type LifecycleEvent = "cadre:created" | "cadre:started" | "cadre:completed" | "cadre:failed" | "cadre:steered";

/** Options for {@link createRunRegistry}. */
export interface RunRegistryOptions {
	/** Settings `maxConcurrent` (background runs at once). */
	maxConcurrent: number;
	/** Emits a lifecycle event; payloads are plain copies. */
	emit(event: LifecycleEvent, payload: Record<string, unknown>): void;
	/** Called once per run when it reaches a terminal state (after isolation finished). */
	onTerminal?(run: RunRecord): void;
	/**
	 * Called after every change a person could see (created, started, each child event, steered,
	 * terminal), for live displays. Must return at once: the host throttles its own rendering.
	 */
	onChange?(run: RunRecord): void;
	isolation?: IsolationHooks;
	/**
	 * A nested run ended (issue 21): the run that spawned it is told, as the root session is told of
	 * its own children. Returns the text delivered into the spawning run's session, or null for none.
	 */
	notifyText?(run: RunRecord): string | null;
	/** Warning sent to the child two turns before `max_turns`. */
	turnWarning?(remaining: number): string;
	/** The parent session id recorded in every run (default null). */
	parentSession?: string | null;
	/** Where run records go (ADR 0068); none: runs are not persisted. */
	records?: RecordWriter;
	/** Minimum time between two progress writes of one run (default 2000 ms). */
	progressSaveMs?: number;
	/**
	 * How long a write waits for more changes of its run (default 50 ms): a run's creation, start
	 * and transcript become one write, and a run that ends sooner is written once, at its end.
	 */
	saveDelayMs?: number;
	/**
	 * Runs of earlier processes of this parent session, as loaded from disk: listed, fetched and
	 * resumable, never started, stopped or steered here.
	 */
	earlier?: readonly RunRecord[];
	/**
	 * Settings `budget.session` (or `cadre run --batch --budget`): what all runs of this parent
	 * may spend together; each run reserves its budget from it (ADR 0172). Default: unlimited.
	 */
	sessionBudget?: Budget;
}

/**
 * Writes run records; each answers null or why the write failed, which goes into the run's
 * `persistError`. The registry asks at creation, at every state change and on turn ends at most
 * once per `progressSaveMs` — never per token — through `save`: off the spawn path, after
 * `saveDelayMs`, one write of a run at a time (asks meanwhile make one more write of the latest
 * state). The end is written with `saveNow` after those, before the terminal event; an end that
 * could not be written is written again after the next write that works, and at the session's end.
 */
export interface RecordWriter {
	save(run: RunRecord): Promise<string | null>;
	saveNow(run: RunRecord): string | null;
}

/** The registry of one parent session's runs. */
export interface RunRegistry {
	/**
	 * Create a run from a plan. Isolation `prepare` runs first (a throw refuses the spawn).
	 * Foreground runs start at once; background runs queue in the limiter. `done` settles when
	 * the run is terminal.
	 */
	spawn(
		plan: SpawnPlan,
		options: { background: boolean; signal?: AbortSignal; onProgress?: ProgressListener; resumeFile?: string | null; parentId?: string | null; spawnerCwd?: string | null; budgetShare?: Partial<Budget> },
	): Promise<{ run: RunRecord; done: Promise<RunRecord> }>;
	/** What remains of the session's budget pool (no id) or of a run's reservation. */
	budgetRemaining(id?: string): Budget;
	get(id: string): RunRecord | undefined;
	/** Earlier processes' runs first (oldest first), then this process's in creation order. */
	list(): RunRecord[];
	/** This process's runs only, in creation order (what the session's end stops). */
	own(): RunRecord[];
	/**
	 * Stop a queued or running run (recorded as stopped; wins any race with finishing). An earlier
	 * process's run is returned as it is.
	 */
	stop(id: string): Promise<RunRecord | undefined>;
	/** Steer a run: delivered after its current tool call, buffered while queued. */
	steer(id: string, message: string): Promise<RunRecord>;
	/** The live child's conversation, or null when the run has no live child (queued or ended: read its transcript). */
	conversation(id: string): ChildMessage[] | null;
	/** Wait for a run to be terminal; resolves null when `timeoutMs` passes first (never stops it). */
	wait(id: string, timeoutMs: number | null, signal?: AbortSignal): Promise<RunRecord | null>;
	/** Stop every queued and running run (parent session end); later spawns are stopped at once. */
	stopAll(): Promise<void>;
	setMaxConcurrent(max: number): void;
	/**
	 * Runs `wait` while run `id` gives its limiter slot back (a foreground `subagent` call, a waiting
	 * `get_subagent_result`; ADR 0173), then takes a slot again ahead of every queued run. A run that
	 * holds no slot (the root's foreground runs, the root session itself) just waits.
	 */
	whileWaiting<T>(id: string | null, wait: () => Promise<T>): Promise<T>;
	/** The runs run `id` spawned, in creation order. */
	children(id: string): RunRecord[];
}
