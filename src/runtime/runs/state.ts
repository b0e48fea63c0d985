/**
 * The registry's one plain state: every run of this process with what only the registry knows of
 * it ({@link Internal}), the earlier processes' records, the limiter, the options and the
 * defaults drawn from them. The other parts of src/runtime/runs/ are functions over it.
 */
import { UNLIMITED } from "../../core/budget.ts";
import { type BudgetLedger, createBudgetLedger } from "../budget-ledger.ts";
import type { ChildHandle, ChildUsage } from "../pi/child-session.ts";
import { createLimiter, type Limiter } from "../limiter.ts";
import type { ReceiptCollector } from "../receipt.ts";
import type { IsolationHooks, ProgressListener, RecordWriter, RunRecord, RunRegistryOptions, SpawnPlan } from "./types.ts";


/** No isolation: effective `isolation: worktree` runs this no-op until the worktree hook exists. */
export const noIsolation: IsolationHooks = {
	prepare: async () => ({ cwd: null, report: null }),
	finish: async () => null,
};

/** What the registry keeps of one run of this process beside its record. */
export interface Internal {
	record: RunRecord;
	child: ChildHandle | null;
	/** Collects the run's receipt from its child's events (issue 23); set when the child exists. */
	receipt?: ReceiptCollector;
	stopRequested: boolean;
	aborted: boolean;
	buffered: string[];
	cancelQueued: (() => boolean) | null;
	/** Gives its limiter slot back; null while it holds none (foreground at depth 1, or waiting on its children). */
	slot: (() => void) | null;
	/** Its child session has settled: nothing steered into it would be read (a nested end is not told). */
	settled?: boolean;
	/** Ends its queueing for a slot again after a wait (a stop must not wait for a free slot). */
	retake?: (() => void) | null;
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
	/** The run holds a reservation in the ledger (released once, when it ends). */
	reserved?: boolean;
}

export const ZERO_USAGE: ChildUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };

/** Everything the registry of one parent session holds. */
export interface RegistryState {
	options: RunRegistryOptions;
	/** This process's runs, in creation order. */
	runs: Map<string, Internal>;
	/** The runs each run spawned, in creation order (kept with `runs`: a run's end looks up its subtree). */
	children: Map<string, Internal[]>;
	/** Runs of earlier processes of this parent session (listed, fetched, resumed; never driven). */
	earlier: Map<string, RunRecord>;
	records: RecordWriter | undefined;
	progressSaveMs: number;
	saveDelayMs: number;
	/**
	 * Ended runs whose last write failed (the directory was unwritable for a while): written again
	 * after the next write that works and at the session's end, so the records agree with the runs.
	 */
	unsaved: Set<Internal>;
	/** The parent session ended (`stopAll`): a spawn that was still preparing is stopped at once. */
	closed: boolean;
	limiter: Limiter;
	isolation: IsolationHooks;
	/** The warning sent two turns before `max_turns`. */
	warning: (remaining: number) => string;
	/** The budget ledger of this parent: the session pool and every running run's reservation (ADR 0172). */
	ledger: BudgetLedger;
}

/** The registry's state for `options`, with no run yet. */
export function createRegistryState(options: RunRegistryOptions): RegistryState {
	return {
		options,
		runs: new Map(),
		children: new Map(),
		earlier: new Map((options.earlier ?? []).map((run) => [run.id, run])),
		records: options.records,
		progressSaveMs: options.progressSaveMs ?? 2000,
		saveDelayMs: options.saveDelayMs ?? 50,
		unsaved: new Set(),
		closed: false,
		limiter: createLimiter(options.maxConcurrent),
		isolation: options.isolation ?? noIsolation,
		ledger: createBudgetLedger(options.sessionBudget ?? { ...UNLIMITED }),
		warning:
			options.turnWarning ??
			((remaining: number) =>
				`[cadre] You have ${remaining} turn${remaining === 1 ? "" : "s"} left before your turn limit. Finish your work and give your final answer now.`),
	};
}

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

