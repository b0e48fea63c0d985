/**
 * Creating a run from a plan: its record, isolation `prepare` (a throw refuses the spawn), the
 * `cadre:created` event, the parent call's abort signal, and its start — at once in the
 * foreground, through the limiter in the background.
 */
import { BUDGET_DIMENSIONS, type Budget, formatBudget, UNLIMITED } from "../../core/budget.ts";
import { limited } from "../budget-meter.ts";
import { currentOwner } from "../owner.ts";
import { changed, eventPayload } from "./events.ts";
import { execute } from "./execute.ts";
import { finish } from "./finish.ts";
import { save } from "./persistence.ts";
import { type Internal, newRunId, type RegistryState, ZERO_USAGE } from "./state.ts";
import type { ProgressListener, RunRecord, SpawnPlan } from "./types.ts";
import { addRun } from "./tree.ts";

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
	/** What a run takes in a dimension its budget leaves open, instead of all that remains (a batch's share). */
	budgetShare?: Partial<Budget>;
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
		stopReason: null,
		budget: null,
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

/**
 * Reserves the run's budget from its spawning run's remaining, else the session pool (ADR 0172):
 * clamped to what remains (a `budget-clamped` warning), refused `budget-exhausted` when nothing
 * does. A run with no limit under an unlimited pool reserves nothing.
 */
function reserve(registry: RegistryState, record: RunRecord, plan: SpawnPlan, share: Partial<Budget> | undefined): boolean {
	const limit: Budget = { ...UNLIMITED, ...plan.config.budget };
	const parentId = record.parentId ?? undefined;
	if (!limited(limit) && !limited(registry.ledger.remaining(parentId))) return false;
	const requested: Budget = { ...limit };
	for (const dimension of BUDGET_DIMENSIONS) if (requested[dimension] === null && share?.[dimension] != null) requested[dimension] = share[dimension] as number;
	// The spawner's answers so far are charged first: a child cannot reserve what it already spent (ADR 0179).
	const spawnerSpent = parentId ? registry.runs.get(parentId)?.child?.budget?.()?.used : undefined;
	if (parentId && spawnerSpent) registry.ledger.charge(parentId, spawnerSpent);
	const result = registry.ledger.reserve(record.id, requested, parentId);
	if (!result.ok) throw new Error(`Spawn refused (budget-exhausted): ${result.refusal.message}`);
	record.budget = { limit, reserved: result.reserved, used: { tokens: 0, cost: 0, time: 0 }, source: plan.trace.budget?.source ?? "default", clamped: result.clamped, stoppedBy: null, warned: false };
	if (result.clamped.length > 0) {
		const asked = Object.fromEntries(result.clamped.map((dimension) => [dimension, requested[dimension]]));
		const got = Object.fromEntries(result.clamped.map((dimension) => [dimension, result.reserved[dimension]]));
		record.diagnostics.push({
			severity: "warning",
			file: null,
			line: null,
			column: null,
			code: "budget-clamped",
			message: `it asked for a budget of ${formatBudget(asked)} but only ${formatBudget(got)} remained ${parentId ? `to the run ${parentId}` : "of the session's budget"}; it runs with what remained`,
			hint: "what running children do not use comes back when they end; or raise the budget it reserves from",
		});
	}
	return true;
}

/** Create a run from a plan and start (or queue) it; `done` settles when it is terminal. */
export async function spawnRun(registry: RegistryState, plan: SpawnPlan, spawnOptions: SpawnOptions): Promise<{ run: RunRecord; done: Promise<RunRecord> }> {
	const record = newRecord(registry, plan, spawnOptions);
	const reserved = reserve(registry, record, plan, spawnOptions.budgetShare);
	let prepared: Awaited<ReturnType<RegistryState["isolation"]["prepare"]>>;
	try {
		prepared = await registry.isolation.prepare(record);
	} catch (error) {
		if (reserved) registry.ledger.release(record.id, { tokens: 0, cost: 0 });
		throw error;
	}
	record.isolation = prepared.report;
	const internal = newInternal(record, plan, prepared.cwd ?? plan.cwd, spawnOptions);
	internal.reserved = reserved;
	const done = internal.done;
	addRun(registry, internal);
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
