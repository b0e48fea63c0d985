/**
 * Creating a run from a plan: its record, isolation `prepare` (a throw refuses the spawn), the
 * `cadre:created` event, the parent call's abort signal, and its start — at once in the
 * foreground, through the limiter in the background.
 */
import { currentOwner } from "../owner.ts";
import { changed, eventPayload } from "./events.ts";
import { execute } from "./execute.ts";
import { finish } from "./finish.ts";
import { save } from "./persistence.ts";
import { type Internal, newRunId, type RegistryState, ZERO_USAGE } from "./state.ts";
import type { ProgressListener, RunRecord, SpawnPlan } from "./types.ts";

/** How a run is spawned (see `RunRegistry.spawn`). */
export interface SpawnOptions {
	background: boolean;
	signal?: AbortSignal;
	onProgress?: ProgressListener;
	resumeFile?: string | null;
	/** The run that spawns this one (issue 21); absent or null: the root session. */
	parentId?: string | null;
	/** The directory the spawning run works in (its worktree), the base of a nested worktree. */
	spawnerCwd?: string | null;
}

/** A new queued run's record. */
function newRecord(registry: RegistryState, plan: SpawnPlan, spawnOptions: SpawnOptions): RunRecord {
	const now = Date.now();
	const id = newRunId(plan.type, (taken) => registry.runs.has(taken) || registry.earlier.has(taken));
	const spawner = spawnOptions.parentId ? registry.runs.get(spawnOptions.parentId)?.record : undefined;
	return {
		id,
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
		parentSession: registry.options.parentSession ?? null,
		parentId: spawner?.id ?? null,
		rootId: spawner?.rootId ?? id,
		depth: spawner ? spawner.depth + 1 : 1,
		// A worktree spawner's children branch from its worktree (isolation reads it); none otherwise.
		spawnerCwd: spawner?.isolation?.isolation === "worktree" ? (spawnOptions.spawnerCwd ?? null) : null,
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
}

/** What the registry keeps of a new run, in `cwd` (the planned one or isolation's). */
function newInternal(record: RunRecord, plan: SpawnPlan, cwd: string, spawnOptions: SpawnOptions): Internal {
	let resolveDone: (run: RunRecord) => void = () => {};
	const done = new Promise<RunRecord>((resolve) => {
		resolveDone = resolve;
	});
	return {
		record,
		child: null,
		stopRequested: false,
		aborted: false,
		buffered: [],
		cancelQueued: null,
		slot: null,
		done,
		resolveDone,
		finished: false,
		plan,
		cwd,
		resumeFile: spawnOptions.resumeFile ?? null,
		onProgress: spawnOptions.onProgress,
		savedAt: 0,
		saveTimer: null,
		writing: null,
		dirty: false,
	};
}

/** The parent call's abort ends the run: its child is aborted, or it leaves the queue. */
function followAbort(registry: RegistryState, internal: Internal, signal: AbortSignal): void {
	const onAbort = () => {
		if (internal.finished) return;
		internal.aborted = true;
		if (internal.child) void internal.child.abort().catch(() => undefined);
		else if (internal.cancelQueued?.()) void finish(registry, internal, "aborted", "aborted by the parent");
	};
	if (signal.aborted) onAbort();
	else signal.addEventListener("abort", onAbort, { once: true });
	void internal.done.then(() => signal.removeEventListener("abort", onAbort));
}

/** Create a run from a plan and start (or queue) it; `done` settles when it is terminal. */
export async function spawnRun(registry: RegistryState, plan: SpawnPlan, spawnOptions: SpawnOptions): Promise<{ run: RunRecord; done: Promise<RunRecord> }> {
	const record = newRecord(registry, plan, spawnOptions);
	const prepared = await registry.isolation.prepare(record);
	record.isolation = prepared.report;
	const internal = newInternal(record, plan, prepared.cwd ?? plan.cwd, spawnOptions);
	const done = internal.done;
	registry.runs.set(record.id, internal);
	save(registry, internal);
	registry.options.emit("cadre:created", eventPayload(record));
	changed(registry, record);
	if (registry.closed) {
		internal.stopRequested = true;
		await finish(registry, internal, "stopped", "stopped: the parent session ended while the run was being prepared");
		return { run: record, done };
	}
	if (spawnOptions.signal) followAbort(registry, internal, spawnOptions.signal);
	// One limiter for the tree (ADR 0173): a nested run is admitted like a background one.
	if (spawnOptions.background || record.parentId !== null) {
		internal.cancelQueued = registry.limiter.enqueue(record.id, (release) => void execute(registry, internal, release));
	} else if (!internal.finished) {
		void execute(registry, internal, null);
	}
	return { run: record, done };
}
