/**
 * Recovery after a parent crash (ADR 0066): a cadre worktree whose lock names an owner that is gone
 * holds the work of a run that never finished. Recovering it takes the lock over (one recovery per
 * worktree, however many race), then finishes it as a run's end would — commit everything to
 * `cadre/<id>` with a message that says the run was interrupted, unlock, remove the worktree unless
 * something in it cannot be committed. Run by `cadre worktrees clean` and, in the background, when a
 * pi session starts in the repository.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { readRef, type RepoFacts, repoFacts, runGit } from "./git.ts";
import { formatOwner, type Owner } from "../runtime/owner.ts";
import { branchBases, type DiffStat, type WorktreeRecord, worktreeRecords } from "./worktree.ts";
import { finishWorktree } from "./worktree-finish.ts";
import { lockHolder, takeOverLock } from "./worktree-lock.ts";
import { pooledWorktrees, removePooled } from "./worktree-pool.ts";

/** What recovering one interrupted worktree did. */
export interface RecoveredWorktree {
	/** The run id (`cadre/<id>`). */
	id: string;
	worktreePath: string;
	/** The process that ran it, as its lock named it. */
	owner: Owner;
	/** `cadre/<id>` when it holds the run's work, or null when the run had none (the branch was deleted). */
	branch: string | null;
	/** The branch tip when the run changed anything, else null. */
	commit: string | null;
	/** Whether cadre committed uncommitted work now. */
	committed: boolean;
	diffStat: DiffStat | null;
	/** Whether the worktree was removed. */
	removed: boolean;
	/** Why the worktree was kept (ignored files, nested repositories, an error), or null. */
	keptBecause: string | null;
	/** What went wrong, or null. */
	error: string | null;
}

const CADRE_REF = "refs/heads/cadre/";

/** Recovers every interrupted cadre worktree among `records` (git's records of the repository's worktrees). */
export async function recoverInterrupted(facts: RepoFacts, records: WorktreeRecord[]): Promise<RecoveredWorktree[]> {
	const interrupted: [WorktreeRecord, Owner][] = [];
	for (const record of records) {
		if (!record.branch?.startsWith(CADRE_REF) || !existsSync(join(record.path, ".git"))) continue;
		const holder = lockHolder(record);
		if (holder.state === "interrupted") interrupted.push([record, holder.owner]);
	}
	if (interrupted.length === 0) return [];
	const bases = await branchBases(facts.root);
	const done = await Promise.all(interrupted.map(([record, owner]) => recoverOne(facts, record, owner, bases)));
	return done.filter((entry): entry is RecoveredWorktree => entry !== null);
}

async function recoverOne(facts: RepoFacts, record: WorktreeRecord, owner: Owner, bases: Map<string, string>): Promise<RecoveredWorktree | null> {
	// another recovery (a second pi starting, a clean) got there first, or the owner came back
	if (!(await takeOverLock(record.path, facts.root))) return null;
	const id = (record.branch as string).slice(CADRE_REF.length);
	const tip = readRef(facts, `${CADRE_REF}${id}`) ?? record.head ?? "";
	const base = bases.get(id);
	const report = await finishWorktree(
		{
			runId: id,
			branch: `cadre/${id}`,
			repoRoot: facts.root,
			commonDir: facts.commonDir,
			worktreePath: record.path,
			// unknown base (no reflog): what the branch holds already counts as the start
			base: base ?? tip,
			parentBranch: null,
			// a branch still at its creation point holds nothing: deleted with the worktree
			createdBranch: base === tip,
			notices: [],
		},
		{ status: "interrupted", owner },
	);
	// not committed: locked again in the crashed owner's name, so it stays interrupted and the next
	// recovery tries again (finishing unlocked it)
	if (report.error && report.kept && existsSync(join(record.path, ".git"))) {
		await runGit(["worktree", "lock", "--reason", formatOwner(owner), record.path], { cwd: facts.root });
	}
	return {
		id,
		worktreePath: record.path,
		owner,
		branch: report.branch,
		commit: report.commit,
		committed: report.committed,
		diffStat: report.diffStat,
		removed: !report.kept,
		keptBecause: report.keptBecause,
		error: report.error,
	};
}

/**
 * Recovers the interrupted cadre worktrees of the repository containing `cwd` (none outside a
 * repository). Pooled worktrees a dead pi left half-handled hold no run's work: they are removed
 * without a word.
 */
export async function recoverInterruptedWorktrees(cwd: string): Promise<RecoveredWorktree[]> {
	const repo = await repoFacts(cwd);
	if (!repo.ok) return [];
	const records = await worktreeRecords(repo.facts.root);
	const [recovered] = await Promise.all([recoverInterrupted(repo.facts, records), removePooled(repo.facts, pooledWorktrees(records), "interrupted")]);
	return recovered;
}

export function ownerWords(owner: { pid: number; host: string } | null): string {
	return owner ? `its parent process (pid ${owner.pid} on ${owner.host}) is gone` : "its parent process is gone";
}

/** What recovering one interrupted worktree did, in one clause. */
export function recoveredWords(r: RecoveredWorktree): string {
	const stat = r.diffStat ? ` (${r.diffStat.summary})` : "";
	const parts = [
		r.commit && r.branch
			? `${r.committed ? "committed its work to" : "its work is on"} ${r.branch} at ${r.commit.slice(0, 10)}${stat}`
			: "it left no work",
		r.removed ? "worktree removed" : `worktree kept${r.keptBecause ? ` because ${r.keptBecause}` : ""}`,
	];
	if (r.error) parts.push(`problem: ${r.error}`);
	return parts.join("; ");
}

/** The session-start report of recovered worktrees. */
export function renderRecovery(recovered: RecoveredWorktree[]): string {
	const runs = recovered.length === 1 ? "1 interrupted sub-agent run" : `${recovered.length} interrupted sub-agent runs`;
	const lines = [`cadre: recovered ${runs} whose parent process ended while ${recovered.length === 1 ? "it" : "they"} ran:`];
	for (const r of recovered) lines.push(`  ${r.id}: ${recoveredWords(r)}`);
	lines.push("Review with `cadre worktrees list`, apply with `cadre worktrees apply ID`.");
	return `${lines.join("\n")}\n`;
}

/** Where the session-start report goes: pi's UI (`ctx.ui`), or stderr when there is none (print and JSON modes). */
export interface RecoveryNotifier {
	notify(text: string, level: "info" | "warning"): void;
}

/**
 * Recovery when a pi session starts: deferred past the session's start, never throws, and reports
 * what it recovered (nothing when there was nothing to recover) to `ui`, else to stderr. Take `ui`
 * while the session is active: pi refuses a stale context's getters once the session has ended.
 */
export async function recoverInBackground(cwd: string, ui: RecoveryNotifier | null): Promise<void> {
	await new Promise((resolve) => setImmediate(resolve));
	let text: string;
	let level: "info" | "warning" = "warning";
	try {
		const recovered = await recoverInterruptedWorktrees(cwd);
		if (recovered.length === 0) return;
		text = renderRecovery(recovered).trimEnd();
		if (recovered.every((r) => r.removed && r.error === null)) level = "info";
	} catch (error) {
		text = `cadre: recovering interrupted worktrees failed (${(error as Error).message}); \`cadre worktrees clean\` retries it.`;
	}
	try {
		if (ui) ui.notify(text, level);
		else process.stderr.write(`${text}\n`);
	} catch {
		// the UI is gone; `cadre worktrees list` shows what was recovered
	}
}
