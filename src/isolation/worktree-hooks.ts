/**
 * Worktree isolation as the run lifecycle's isolation hooks (`IsolationHooks` of `runs.ts`):
 * `prepare` creates (or, for a resume, reopens) the run's worktree and refuses the spawn with the
 * cause when it cannot; `finish` commits and cleans up after any terminal state and runs the escape
 * check. Runs whose effective isolation is `none` pass through untouched.
 */
import type { Settings } from "../files/types.ts";
import { checkEscape, takeFingerprint } from "./escape-check.ts";
import type { IsolationHooks, IsolationReport, RunRecord, TerminalState } from "../runtime/runs.ts";
import { createWorktree, type IsolationOutcome, reopenWorktree, type WorktreeFailure, type WorktreeHandle } from "./worktree.ts";
import { finishWorktree } from "./worktree-finish.ts";
import { repoFacts } from "./git.ts";
import { registerUse } from "./worktree-users.ts";

/** Thrown by `prepare` to refuse a spawn whose worktree cannot be created (fail closed). */
export class WorktreeRefusedError extends Error {
	readonly failure: WorktreeFailure;
	constructor(failure: WorktreeFailure) {
		super(`worktree isolation unavailable: ${failure.message} ${failure.hint}`);
		this.name = "WorktreeRefusedError";
		this.failure = failure;
	}
}

/** Options of `createWorktreeIsolation`. */
export interface WorktreeIsolationOptions {
	/** pi's agent directory (the default worktree base lives under it). */
	agentDir: string;
	/** The parent session's cwd (absolute). */
	parentCwd: string;
	/** Settings `worktree` as of this spawn (definitions and settings are re-read per spawn). */
	settings(): Settings["worktree"];
	/** The absolute directory the child would start in without isolation (the request's cwd or the parent's). */
	childCwd(run: RunRecord): string;
	/** Paths the parent's own tool calls touched since `since` (epoch ms): edit/write paths, bash cwds. */
	touchedByParent(since: number): Set<string>;
	/** The first run of the resume chain of run `id`, for runs this session did not prepare (earlier processes', ADR 0068). */
	chainRoot?(id: string): string;
}

/** Builds the isolation hooks for one parent session. */
export function createWorktreeIsolation(options: WorktreeIsolationOptions): IsolationHooks {
	const handles = new Map<string, WorktreeHandle>();
	/** Run id → the run id its worktree is named after (a resume keeps the first run's worktree). */
	const lineage = new Map<string, string>();
	const startedAt = new Map<string, number>();
	/** Run id → the release of its use record (ADR 0116): every run, isolated or not. */
	const uses = new Map<string, () => void>();
	/** Run id → the working tree's top of its cwd as the use record found it (the receipt's start reuses it). */
	const startRoots = new Map<string, string | null>();
	const use = async (run: RunRecord, cwd: string) =>
		uses.set(run.id, await registerUse(run.id, [cwd, options.parentCwd], (dir, root) => dir === cwd && startRoots.set(run.id, root)));
	/** Run id → the writing of the use record of a run that is not isolated, started at the latest when first asked for (issue 28). */
	const pendingUses = new Map<string, () => Promise<void>>();
	/**
	 * The use record of a run that works in a directory it did not create: looked up and written
	 * after the spawn's synchronous burst (the child's first request leaves without it), or earlier
	 * when the child's first tool call (`ready`), its receipt's look (`repoRoot`) or its end
	 * (`finish`) asks for it first — none of them waits for the event loop to come round.
	 */
	const useSoon = (run: RunRecord, cwd: string) => {
		let written: Promise<void> | null = null;
		const start = () => (written ??= use(run, cwd).then(() => undefined, () => undefined));
		pendingUses.set(run.id, start);
		setImmediate(start);
	};

	return {
		async prepare(run: RunRecord) {
			if (run.config.isolation !== "worktree") {
				useSoon(run, options.childCwd(run));
				return { cwd: null, report: null };
			}
			const worktreeId = run.resumeOf ? (lineage.get(run.resumeOf) ?? options.chainRoot?.(run.resumeOf) ?? run.resumeOf) : run.id;
			const previous = run.resumeOf ? handles.get(run.resumeOf) : undefined;
			// A nested run (issue 21) branches from its spawner's current state: the spawner's cwd (its
			// worktree) is the base, its uncommitted changes come along; the branch is in the same repo.
			const spawnerCwd = run.spawnerCwd ?? null;
			const create = {
				runId: worktreeId,
				parentCwd: spawnerCwd ?? options.parentCwd,
				requestCwd: options.childCwd(run),
				agentDir: options.agentDir,
				settings: options.settings(),
				copyUncommitted: run.config.copyUncommitted === true || spawnerCwd !== null,
			};
			startedAt.set(run.id, Date.now());
			const outcome: IsolationOutcome = run.resumeOf
				? await reopenWorktree({ ...create, previous: previous ?? null })
				: await createWorktree(create);
			if (outcome.kind === "refused") throw new WorktreeRefusedError(outcome.failure);
			if (outcome.kind === "shared-fallback") {
				await use(run, outcome.cwd);
				return {
					cwd: outcome.cwd,
					report: { isolation: "shared-fallback", cause: outcome.cause, summary: outcome.notice },
				};
			}
			handles.set(run.id, outcome.handle);
			lineage.set(run.id, worktreeId);
			await use(run, outcome.handle.cwd);
			return {
				cwd: outcome.handle.cwd,
				report: {
					isolation: "worktree",
					branch: outcome.handle.branch,
					worktreePath: outcome.handle.worktreePath,
					base: outcome.handle.base,
					parentDirty: outcome.handle.parentDirty,
					pooled: outcome.handle.pooled,
					setup: outcome.handle.setupReport,
					copiedUncommitted: outcome.handle.copiedUncommitted,
					summary: outcome.handle.notices.join(" ") || `isolation: worktree — the child works in ${outcome.handle.worktreePath}.`,
				},
			};
		},

		ready: (run: RunRecord) => pendingUses.get(run.id)?.() ?? null,

		async repoRoot(run: RunRecord, cwd: string): Promise<string | null> {
			await pendingUses.get(run.id)?.();
			const known = startRoots.get(run.id);
			startRoots.delete(run.id);
			if (known !== undefined) return known;
			const repo = await repoFacts(cwd);
			return repo.ok ? repo.facts.root : null;
		},
		async finish(run: RunRecord, state: TerminalState): Promise<IsolationReport | null> {
			// this run no longer works anywhere: its own record must not keep its worktree
			await pendingUses.get(run.id)?.();
			pendingUses.delete(run.id);
			uses.get(run.id)?.();
			uses.delete(run.id);
			startRoots.delete(run.id);
			const handle = handles.get(run.id);
			if (!handle) return run.isolation;
			const report = await finishWorktree(handle, { type: run.type, description: run.description, status: state });
			let escape: ReturnType<typeof checkEscape> | null = null;
			try {
				const watch = (handle.setup?.include ?? []).map((record) => record.path);
				const after = await takeFingerprint(handle.repoRoot, { since: handle.before, watch });
				escape = checkEscape(handle.before, after, options.touchedByParent(startedAt.get(run.id) ?? run.createdAt));
			} catch (error) {
				escape = { paths: [], headMoved: null, warning: `The escape check failed: ${(error as Error).message}` };
			}
			startedAt.delete(run.id);
			return {
				isolation: "worktree",
				...report,
				parentDirty: handle.parentDirty,
				copiedUncommitted: handle.copiedUncommitted,
				escapedPaths: escape.paths,
				escapeWarning: escape.warning,
				summary: escape.warning ? `${report.summary} Warning: ${escape.warning}` : report.summary,
			};
		},
	};
}
