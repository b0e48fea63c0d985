/**
 * Runs (spec 04 "Runs"): one record per spawned child, its states (queued → running → completed |
 * failed | aborted | stopped), the FIFO limiter for background runs, stop/steer/wait, the turn
 * ceiling, lifecycle events and the isolation hooks around every run, and when its record is
 * saved (ADR 0068). Host-neutral: the child session comes from the plan's `createChild`, events go
 * to the injected `emit`, records to the injected `save`; earlier sessions' runs come in as plain
 * records.
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import type { EffectiveConfig, IgnoredRequestValue, Trace } from "../resolve/types.ts";
import { type Contract, checkContract, hasContract, repairMessage } from "./contract.ts";
import { type VerifyOutcome, verifyRun } from "./verify-run.ts";
import { createReceiptCollector, type Receipt, type ReceiptCollector } from "./receipt.ts";
import { createLimiter } from "./limiter.ts";
import { currentOwner, type Owner } from "./owner.ts";
import type { ChildContext, ChildEvent, ChildHandle, ChildMessage, ChildUsage } from "./pi-sdk.ts";

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
}

/** No isolation: effective `isolation: worktree` runs this no-op until the worktree hook exists. */
export const noIsolation: IsolationHooks = {
	prepare: async () => ({ cwd: null, report: null }),
	finish: async () => null,
};

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
	/** The run's own `verify`, run by cadre after the child (issue 23, ADR 0117); absent or null without one. */
	verify?: VerifyOutcome | null;
	/** What cadre saw the child do (issue 23, ADR 0118): files, bash commands, tool uses; absent or null before the end. */
	receipt?: Receipt | null;
	/** The value the child's `submit_result` accepted, or null. */
	structured: unknown;
	error: string | null;
	transcript: string | null;
	isolation: IsolationReport | null;
	/** The `max_turns` ceiling ended the run. */
	limitReached: boolean;
	/** The parent fetched the result (suppresses the notification). */
	fetched: boolean;
	/** The completion notification went out. */
	notified: boolean;
	/** Why the last write of the run's record failed (it will not outlive the session), or null. */
	persistError: string | null;
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
	spawn(plan: SpawnPlan, options: { background: boolean; signal?: AbortSignal; onProgress?: ProgressListener; resumeFile?: string | null }): Promise<{ run: RunRecord; done: Promise<RunRecord> }>;
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
}

interface Internal {
	record: RunRecord;
	child: ChildHandle | null;
	receipt?: ReceiptCollector;
	stopRequested: boolean;
	aborted: boolean;
	buffered: string[];
	cancelQueued: (() => boolean) | null;
	done: Promise<RunRecord>;
	resolveDone: (run: RunRecord) => void;
	finished: boolean;
	plan: SpawnPlan;
	cwd: string;
	resumeFile: string | null;
	onProgress: ProgressListener | undefined;
	/** When the record was last asked to be saved (epoch ms). */
	savedAt: number;
	/** The record write waiting or in flight, and whether the run changed since it began. */
	saveTimer: NodeJS.Timeout | null;
	writing: Promise<void> | null;
	dirty: boolean;
}

const ZERO_USAGE: ChildUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };

/** A short id that is a valid git ref component: `<type>-<base36>`. */
export function newRunId(type: string, taken: (id: string) => boolean): string {
	const slug =
		type
			.toLowerCase()
			.replace(/[^a-z0-9-]+/g, "-")
			.replace(/^-+|-+$/g, "")
			.slice(0, 24) || "agent";
	for (;;) {
		const id = `${slug}-${Math.random().toString(36).slice(2, 8)}`;
		if (!taken(id)) return id;
	}
}

/** The first run of the resume chain `id` belongs to, as far as `get` knows the chain (bounded). */
export function chainRoot(id: string, get: (id: string) => RunRecord | undefined): string {
	let root = id;
	for (let step = 0; step < 1000; step++) {
		const up = get(root)?.resumeOf;
		if (!up) break;
		root = up;
	}
	return root;
}

/** What every lifecycle event carries (docs/runtime.md "Events"): a copy, never the live record. */
export type RunEventPayload = {
	id: string;
	type: string;
	description: string;
	status: RunState;
	background: boolean;
	model: EffectiveConfig["model"];
	capabilityMode: EffectiveConfig["capabilityMode"];
	persona: EffectiveConfig["persona"];
	tools: string[];
	/** The persona contract's outcome once the run ended (null before, or without a contract). */
	contract: Contract | null;
	/** The receipt once the run ended (issue 23); null before. */
	receipt: Receipt | null;
	turns: number;
	toolUses: number;
	usage: ChildUsage;
	transcript: string | null;
	error: string | null;
	resumeOf: string | null;
};

/** `cadre:steered` adds the message and whether it waits for the child to start. */
export type SteeredEventPayload = RunEventPayload & { message: string; buffered: boolean };

/** A by-value payload for lifecycle events. */
export function eventPayload(run: RunRecord): RunEventPayload {
	return {
		id: run.id,
		type: run.type,
		description: run.description,
		status: run.state,
		background: run.background,
		model: run.config.model,
		capabilityMode: run.config.capabilityMode,
		persona: run.config.persona,
		tools: [...run.config.tools],
		contract: run.contract === null ? null : structuredClone(run.contract),
		receipt: run.receipt ? structuredClone(run.receipt) : null,
		turns: run.turns,
		toolUses: run.toolUses,
		usage: { ...run.usage },
		transcript: run.transcript,
		error: run.error,
		resumeOf: run.resumeOf,
	};
}

const STOPPED = "stopped by the user or the parent session";

/** A stopped run's error: why it stopped, and how it was ending when the stop won (`state`, `error`). */
function stoppedError(state: TerminalState, error: string | null): string {
	if (state === "stopped") return error ?? STOPPED;
	return error ? `${STOPPED}; it had ${state}: ${error}` : STOPPED;
}

/** Runs a host callback; what it throws is its own problem, never the run's. */
function quietly(callback: () => void): void {
	try {
		callback();
	} catch {
		// see the doc comment
	}
}

/** A `steer-undelivered` diagnostic: a steered message the child's session refused. */
function undelivered(message: string, why: string, hint: string): Diagnostic {
	const shown = message.length > 80 ? `${message.slice(0, 79)}…` : message;
	return {
		severity: "warning",
		file: null,
		line: null,
		column: null,
		code: "steer-undelivered",
		message: `the message ${JSON.stringify(shown)} steered to it was not delivered: ${why}`,
		hint,
	};
}

/** Why an earlier session's run cannot be steered from this one. */
function notHere(run: RunRecord): string {
	if (run.endedAt !== null) return `Run ${run.id} is already ${run.state}; steer only reaches queued or running runs (resume it instead).`;
	return `Run ${run.id} is ${run.activity}; it can be steered or stopped only there.`;
}

/** Create the run registry of one parent session. */
export function createRunRegistry(options: RunRegistryOptions): RunRegistry {
	const runs = new Map<string, Internal>();
	const earlier = new Map((options.earlier ?? []).map((run) => [run.id, run]));
	const progressSaveMs = options.progressSaveMs ?? 2000;
	const records = options.records;
	const failed = (error: unknown) => `the run record could not be saved: ${(error as Error).message}`;
	const saveDelayMs = options.saveDelayMs ?? 50;
	const flush = (internal: Internal, writer: RecordWriter) => {
		internal.saveTimer = null;
		internal.writing = (async () => {
			while (internal.dirty) {
				internal.dirty = false;
				internal.record.persistError = await writer.save(internal.record).catch(failed);
			}
			internal.writing = null;
		})();
	};
	/** Ask for the run's record to be written (coalesced, off the spawn path). */
	const save = (internal: Internal): void => {
		if (!records) return;
		internal.savedAt = Date.now();
		internal.dirty = true;
		if (internal.writing || internal.saveTimer) return;
		internal.saveTimer = setTimeout(() => flush(internal, records), saveDelayMs);
		internal.saveTimer.unref?.();
	};
	const writeNow = (internal: Internal, writer: RecordWriter): boolean => {
		try {
			internal.record.persistError = writer.saveNow(internal.record);
		} catch (error) {
			internal.record.persistError = failed(error);
		}
		return internal.record.persistError === null;
	};
	/**
	 * Ended runs whose last write failed (the directory was unwritable for a while): written again
	 * after the next write that works and at the session's end, so the records agree with the runs.
	 */
	const unsaved = new Set<Internal>();
	const retryUnsaved = (writer: RecordWriter) => {
		for (const internal of unsaved) {
			if (!writeNow(internal, writer)) return;
			unsaved.delete(internal);
		}
	};
	/** Write the end (call after the write in flight, if any, has settled): it is the last one. */
	const saveEnd = (internal: Internal): void => {
		if (!records) return;
		if (internal.saveTimer) clearTimeout(internal.saveTimer);
		internal.saveTimer = null;
		internal.dirty = false;
		if (writeNow(internal, records)) retryUnsaved(records);
		else unsaved.add(internal);
	};
	/** The parent session ended (`stopAll`): a spawn that was still preparing is stopped at once. */
	let closed = false;
	const limiter = createLimiter(options.maxConcurrent);
	const isolation = options.isolation ?? noIsolation;
	const warning =
		options.turnWarning ??
		((remaining: number) =>
			`[cadre] You have ${remaining} turn${remaining === 1 ? "" : "s"} left before your turn limit. Finish your work and give your final answer now.`);

	/** A display must never break a run. */
	const changed = (run: RunRecord) => quietly(() => options.onChange?.(run));

	const finish = async (internal: Internal, state: TerminalState, error: string | null) => {
		if (internal.finished) return;
		internal.finished = true;
		const run = internal.record;
		// A user stop wins any race with a finishing run.
		const final: TerminalState = internal.stopRequested ? "stopped" : state;
		const child = internal.child;
		if (child) {
			// A message steered after the child's last turn stays unread; a stopped run's are moot.
			const unread = final === "stopped" ? [] : await child.unread().catch(() => []);
			const hint = "resume the run with the message to give it to the child";
			for (const message of unread) run.diagnostics.push(undelivered(message, "it came after the child's last turn", hint));
			run.usage = child.usage();
			run.text = child.lastText();
			run.transcript = child.transcript ?? run.transcript;
			const submitted = child.structured();
			if (submitted && "value" in submitted) run.structured = submitted.value;
			// A run that did not complete is checked as it ended, without a repair turn.
			if (run.contract === null && hasContract(run.config)) {
				run.contract = checkContract(run.config, { cwd: internal.cwd, answer: run.text, structured: submitted });
				if (!run.contract.ok) run.contract.repair = { steered: false, worked: false, skipped: `the run ended ${final}` };
			}
			run.diagnostics.push(...child.diagnostics());
			try {
				child.dispose();
			} catch {
				// disposing a failed session must not hide the result
			}
			internal.child = null;
		}
		run.error = final === "stopped" ? stoppedError(state, error) : error;
		try {
			run.isolation = (await isolation.finish(run, final)) ?? run.isolation;
		} catch (cause) {
			run.isolation = { ...(run.isolation ?? {}), error: cause instanceof Error ? cause.message : String(cause) };
		}
		if (internal.receipt) run.receipt = await internal.receipt.finish(run.isolation).catch(() => null);
		await internal.writing;
		// A stop that arrived while isolation was wrapping up still wins (the run was not terminal).
		run.state = internal.stopRequested ? "stopped" : final;
		if (run.state !== final) run.error = stoppedError(state, error);
		run.endedAt = Date.now();
		run.activity = run.state;
		run.currentTool = null;
		// Written before the terminal event: whoever reacts to it (or a session started next) reads the end.
		saveEnd(internal);
		// A host callback that throws must not keep the run from settling or its slot from coming back.
		quietly(() => options.emit(run.state === "completed" ? "cadre:completed" : "cadre:failed", eventPayload(run)));
		quietly(() => options.onTerminal?.(run));
		changed(run);
		internal.resolveDone(run);
	};

	/** Why a run whose contract is not kept gets no repair turn, or null when it gets one. */
	const noRepair = (internal: Internal): string | null => {
		const run = internal.record;
		if (internal.plan.repairContract === false) return "settings contracts.repair is false";
		const maxTurns = run.config.maxTurns;
		if (run.limitReached || (maxTurns !== null && run.turns >= maxTurns)) return `no turns left (max_turns ${maxTurns})`;
		return null;
	};

	/** Checks a completed run's contract; when it is not kept, steers the child once (the repair turn) and checks again. */
	const keepContract = async (internal: Internal, child: ChildHandle) => {
		const run = internal.record;
		if (!hasContract(run.config)) return;
		const check = () => checkContract(run.config, { cwd: internal.cwd, answer: child.lastText(), structured: child.structured() });
		const first = check();
		if (first.ok) {
			run.contract = first;
			return;
		}
		const skipped = noRepair(internal);
		if (skipped !== null) {
			run.contract = { ...first, repair: { steered: false, worked: false, skipped } };
			return;
		}
		run.activity = "repair turn";
		await child.run(repairMessage(run.config, first));
		const after = check();
		run.contract = { ...after, repair: { steered: true, worked: after.ok, skipped: null } };
	};

	/** Runs a started run to its end; the limiter's slot (if any) is held until it is terminal (isolation finished, events out). */
	const execute = async (internal: Internal, release: (() => void) | null) => {
		try {
			if (!internal.finished) await runToEnd(internal);
		} finally {
			release?.();
		}
	};

	const runToEnd = async (internal: Internal) => {
		const run = internal.record;
		// Stopped (or its parent call aborted) before it could be cancelled in the queue — a stop from
		// a `cadre:created` listener comes before the run is queued at all: it ends here, never started.
		if (internal.stopRequested || internal.aborted) {
			await finish(internal, internal.stopRequested ? "stopped" : "aborted", internal.stopRequested ? null : "aborted by the parent");
			return;
		}
		run.state = "running";
		run.startedAt = Date.now();
		run.lastEventAt = run.startedAt;
		run.activity = "starting";
		save(internal);
		options.emit("cadre:started", eventPayload(run));
		changed(run);
		let state: TerminalState = "completed";
		let error: string | null = null;
		try {
			const child = await internal.plan.createChild(run, internal.cwd, internal.resumeFile);
			internal.child = child;
			internal.receipt = createReceiptCollector(internal.cwd, run.isolation?.isolation === "worktree");
			run.transcript = child.transcript;
			save(internal);
			if (internal.stopRequested || internal.aborted) {
				await finish(internal, internal.aborted ? "aborted" : "stopped", null);
				return;
			}
			const maxTurns = run.config.maxTurns;
			// With max_turns ≤ 2, "two turns before the ceiling" is the start: warn before the first request.
			if (maxTurns !== null && maxTurns <= 2) internal.buffered.push(warning(maxTurns));
			/** A message accepted earlier that pi refuses now (e.g. it names a command of the child's extensions). */
			const deliver = (message: string) =>
				void child.steer(message).catch((cause: unknown) => {
					const why = cause instanceof Error ? cause.message : String(cause);
					run.diagnostics.push(undelivered(message, why, "steer it again in words the child reads as a message (not one of its commands)"));
				});
			const seen: { last: { stopReason: string; errorMessage: string | null } | null } = { last: null };
			const unsubscribe = child.subscribe((event) => {
				run.lastEventAt = Date.now();
				internal.receipt?.onEvent(event);
				switch (event.type) {
					case "turn_start":
						run.activity = "thinking";
						run.currentTool = null;
						if (event.turn === 1) for (const message of internal.buffered.splice(0)) deliver(message);
						break;
					case "turn_end":
						run.usage = child.usage();
						if (run.lastEventAt - internal.savedAt >= progressSaveMs) save(internal);
						run.context = child.contextUsage();
						// The ceiling itself is enforced in the child (pi-sdk guard, terminate).
						if (maxTurns !== null && event.toolCalls > 0) {
							if (event.turn === maxTurns - 2) deliver(warning(2));
							if (event.turn >= maxTurns) run.limitReached = true;
						}
						break;
					case "tool_start":
						// Live totals (the answer that asked for the tool is recorded by now), so
						// /subagents and the service show tokens while the run goes on.
						run.usage = child.usage();
						run.toolUses++;
						run.activity = `tool ${event.toolName}`;
						run.currentTool = { name: event.toolName, args: event.args };
						break;
					case "assistant":
						// A turn is one model answer; an answer aborted before it began, or a failed one
						// (pi retries it, or the run fails), is none.
						if (event.stopReason !== "aborted" && event.stopReason !== "error") run.turns++;
						seen.last = event;
						break;
					default:
						break;
				}
				internal.onProgress?.(run, event);
				changed(run);
			});
			try {
				await child.run(run.prompt);
				const ended = seen.last?.stopReason;
				if (!internal.aborted && !internal.stopRequested && ended !== "error" && ended !== "aborted") {
					await keepContract(internal, child);
					const verify = run.config.verify;
					if (verify && !internal.aborted && !internal.stopRequested) {
						run.verify = await verifyRun({ verify, cwd: internal.cwd, runId: run.id, noRepair: () => noRepair(internal), repairTurn: (m) => child.run(m), activity: (a) => (run.activity = a) });
					}
				}
			} finally {
				unsubscribe();
			}
			const last = seen.last;
			if (internal.aborted) state = "aborted";
			else if (internal.stopRequested) state = "stopped";
			else if (run.limitReached) state = "completed";
			else if (last?.stopReason === "error") {
				state = "failed";
				error = last.errorMessage ?? "the model request failed";
			} else if (last?.stopReason === "aborted") state = "aborted";
		} catch (cause) {
			state = internal.aborted ? "aborted" : "failed";
			error = cause instanceof Error ? cause.message : String(cause);
		}
		await finish(internal, state, error);
	};

	const registry: RunRegistry = {
		async spawn(plan, spawnOptions) {
			const now = Date.now();
			const record: RunRecord = {
				id: newRunId(plan.type, (id) => runs.has(id) || earlier.has(id)),
				type: plan.type,
				description: plan.description,
				prompt: plan.prompt,
				plannedCwd: plan.cwd,
				background: spawnOptions.background,
				state: "queued",
				config: plan.config,
				trace: plan.trace,
				ignored: plan.ignored,
				diagnostics: [...plan.diagnostics],
				resumeOf: plan.resumeOf,
				parentSession: options.parentSession ?? null,
				owner: currentOwner(),
				createdAt: now,
				startedAt: null,
				endedAt: null,
				lastEventAt: now,
				activity: "queued",
				currentTool: null,
				context: null,
				turns: 0,
				toolUses: 0,
				usage: { ...ZERO_USAGE },
				text: null,
				contract: null,
				structured: null,
				error: null,
				transcript: spawnOptions.resumeFile ?? null,
				isolation: null,
				limitReached: false,
				fetched: false,
				notified: false,
				persistError: null,
			};
			const prepared = await isolation.prepare(record);
			record.isolation = prepared.report;
			let resolveDone: (run: RunRecord) => void = () => {};
			const done = new Promise<RunRecord>((resolve) => {
				resolveDone = resolve;
			});
			const internal: Internal = {
				record,
				child: null,
				stopRequested: false,
				aborted: false,
				buffered: [],
				cancelQueued: null,
				done,
				resolveDone,
				finished: false,
				plan,
				cwd: prepared.cwd ?? plan.cwd,
				resumeFile: spawnOptions.resumeFile ?? null,
				onProgress: spawnOptions.onProgress,
				savedAt: 0,
				saveTimer: null,
				writing: null,
				dirty: false,
			};
			runs.set(record.id, internal);
			save(internal);
			options.emit("cadre:created", eventPayload(record));
			changed(record);
			if (closed) {
				internal.stopRequested = true;
				await finish(internal, "stopped", "stopped: the parent session ended while the run was being prepared");
				return { run: record, done };
			}
			const signal = spawnOptions.signal;
			if (signal) {
				const onAbort = () => {
					if (internal.finished) return;
					internal.aborted = true;
					if (internal.child) void internal.child.abort().catch(() => undefined);
					else if (internal.cancelQueued?.()) void finish(internal, "aborted", "aborted by the parent");
				};
				if (signal.aborted) onAbort();
				else signal.addEventListener("abort", onAbort, { once: true });
				void done.then(() => signal.removeEventListener("abort", onAbort));
			}
			if (spawnOptions.background) {
				internal.cancelQueued = limiter.enqueue(record.id, (release) => void execute(internal, release));
			} else if (!internal.finished) {
				void execute(internal, null);
			}
			return { run: record, done };
		},
		get: (id) => runs.get(id)?.record ?? earlier.get(id),
		list: () => [...earlier.values(), ...registry.own()],
		conversation: (id) => runs.get(id)?.child?.messages() ?? null,
		own: () => [...runs.values()].map((internal) => internal.record),
		async stop(id) {
			const internal = runs.get(id);
			if (!internal) return earlier.get(id);
			if (internal.finished) {
				// Finishing (isolation wrap-up): not terminal yet, so the stop still wins.
				if (internal.record.endedAt !== null) return internal.record;
				internal.stopRequested = true;
				return internal.done;
			}
			internal.stopRequested = true;
			if (internal.record.state === "queued" && internal.cancelQueued?.()) {
				await finish(internal, "stopped", null);
				return internal.record;
			}
			if (internal.child) await internal.child.abort();
			return internal.done;
		},
		async steer(id, message) {
			const internal = runs.get(id);
			const loaded = earlier.get(id);
			if (loaded) throw new Error(notHere(loaded));
			if (!internal) throw new Error(`No sub-agent run with id ${id}. Use /subagents to list runs.`);
			const run = internal.record;
			if (internal.finished) {
				const now = run.endedAt === null ? "finishing" : `already ${run.state}`;
				throw new Error(`Run ${id} is ${now}; steer only reaches queued or running runs (resume it instead).`);
			}
			if (internal.child && run.state === "running") await internal.child.steer(message);
			else internal.buffered.push(message);
			const payload: SteeredEventPayload = { ...eventPayload(run), message, buffered: !internal.child };
			options.emit("cadre:steered", payload);
			changed(run);
			return run;
		},
		async wait(id, timeoutMs, signal) {
			const internal = runs.get(id);
			const loaded = earlier.get(id);
			// A run another process still runs cannot be waited for here: its progress is what there is.
			if (loaded) return loaded.endedAt !== null ? loaded : null;
			if (!internal) throw new Error(`No sub-agent run with id ${id}.`);
			// Finishing (isolation wrap-up, the last record write) is not terminal yet: wait for the end.
			if (internal.record.endedAt !== null) return internal.record;
			const waits: Promise<RunRecord | null>[] = [internal.done];
			let timer: NodeJS.Timeout | undefined;
			if (timeoutMs !== null) waits.push(new Promise((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs))));
			if (signal) waits.push(new Promise((resolve) => signal.addEventListener("abort", () => resolve(null), { once: true })));
			try {
				return await Promise.race(waits);
			} finally {
				if (timer) clearTimeout(timer);
			}
		},
		async stopAll() {
			closed = true;
			await Promise.all([...runs.keys()].map((id) => registry.stop(id)));
			if (records) retryUnsaved(records);
		},
		setMaxConcurrent: (max) => limiter.setMax(max),
	};
	return registry;
}
