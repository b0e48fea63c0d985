/**
 * Finishing a run's worktree (spec 05 "On completion"), whatever its terminal state: commit
 * everything the child left to `cadre/<run-id>`, report branch, commit and diff stat, and release
 * the worktree — removed, or back into the pool — only when nothing in it needs keeping; otherwise
 * keep it and say why. Recovery finishes an interrupted run's worktree the same way (ADR 0066).
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Owner } from "../runtime/owner.ts";
import { FINGERPRINT_STATUS_ARGS, parseStatus, type StatusEntry } from "./escape-check.ts";
import { firstLine, readHead, readRef, runGit } from "./git.ts";
import { commitIdentityEnv, type DiffStat, diffStat, plural, removeIfEmpty, type WorktreeHandle } from "./worktree.ts";
import { worktreeAdminDir } from "./worktree-lock.ts";
import { countInUse, notReusable, returnToPool } from "./worktree-pool.ts";
import { liveUsers, usersReason } from "./worktree-users.ts";
import { readSetupState, type SetupState, setupChanges } from "./worktree-setup.ts";

/** What the run reports when it ends; the commit message names type and description. */
export interface RunEnd {
	/** The child's type (canonical name). */
	type: string;
	/** The spawn's 3–5 word description. */
	description: string;
	/** The run's terminal state. */
	status: "completed" | "failed" | "aborted" | "stopped";
}

/** A run that never ended: its parent process died while it ran (recovery, ADR 0066). */
export interface RunInterrupted {
	status: "interrupted";
	/** The process that ran it, as its worktree lock names it. */
	owner: Owner;
}

/** Why a worktree is being finished; the commit message says it. */
export type FinishInfo = RunEnd | RunInterrupted;

/** What finishing a worktree did, for the run's result. */
export interface WorktreeFinishReport {
	runId: string;
	worktreePath: string;
	/** `cadre/<run-id>` when it holds the child's work (it still exists), else null. */
	branch: string | null;
	/** The branch tip after finishing when the child changed anything, else null. */
	commit: string | null;
	/** Whether cadre made a commit of the child's uncommitted work now. */
	committed: boolean;
	/** Whether the branch differs from the base (cadre's commit or the child's own commits). */
	changed: boolean;
	diffStat: DiffStat | null;
	/** Whether the worktree directory still exists. */
	kept: boolean;
	/** Why it was kept, in plain words, or null. */
	keptBecause: string | null;
	/** Ignored files and directories the child left (never committed, so the worktree is kept); the setup's own are not listed. */
	ignoredFiles: string[];
	/** Files `worktree.include` or `worktree.setup` made that the child changed, created below them or removed (kept too). */
	changedSetupFiles: string[];
	/** Nested git repositories the child created (not committed, so the worktree is kept). */
	nestedRepositories: string[];
	/**
	 * Where the worktree's HEAD was when the child had moved it off `cadre/<run-id>` to work that
	 * branch does not contain (the worktree is then kept), or null.
	 */
	offBranch: string | null;
	/** Whether the worktree went back to the pool instead of being removed. */
	pooled: boolean;
	/** Something that went wrong (the worktree is then kept), or null. */
	error: string | null;
	/** One paragraph for the result, in plain words. */
	summary: string;
}

/** Git options every cadre commit uses: no signing, no hooks that could block the commit. */
const COMMIT_CONFIG = ["-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"];

/**
 * What finishing a worktree needs of its handle (recovery builds one from git's records alone). Without
 * `setup`, the setup state recorded in the worktree's git directory counts; without `pool`, a worktree
 * with nothing left in it is removed.
 */
export type FinishTarget = Omit<WorktreeHandle, "cwd" | "parentDirty" | "before" | "pooled" | "pool" | "setup" | "setupReport" | "copiedUncommitted"> &
	Partial<Pick<WorktreeHandle, "pool" | "setup">>;

/**
 * Reads a worktree's HEAD from its files (no subprocess): the commit, and the full ref it is on
 * (null when detached).
 */
function worktreeHead(worktreePath: string, commonDir: string): { head: string | null; ref: string | null } | null {
	const gitDir = worktreeAdminDir(worktreePath);
	if (!gitDir) return null;
	const { branch, head } = readHead({ gitDir, commonDir });
	return { head, ref: branch === null ? null : `refs/heads/${branch}` };
}

/**
 * The child moved its worktree off `cadre/<run-id>` (a detached HEAD, another branch): moves the
 * branch forward to the worktree's HEAD when that only adds to it, so the work is on `cadre/<run-id>`
 * as reported. Returns null then, or — when the branch would lose commits — a reason to keep the
 * worktree (nothing is moved or deleted).
 */
async function bringBranchTo(handle: FinishTarget, wt: string, tip: string, ref: string | null): Promise<string | null> {
	const where = ref ? ref.replace(/^refs\/heads\//, "branch ") : "a detached HEAD";
	const branchTip = readRef({ gitDir: handle.commonDir, commonDir: handle.commonDir }, `refs/heads/${handle.branch}`);
	const forward = branchTip === null || (await runGit(["merge-base", "--is-ancestor", branchTip, tip], { cwd: wt })).code === 0;
	if (!forward) {
		return `the child left the worktree on ${where} at ${tip.slice(0, 12)}, which is not on ${handle.branch} (${handle.branch} is at ${branchTip?.slice(0, 12)})`;
	}
	const moved = await runGit(["update-ref", `refs/heads/${handle.branch}`, tip, branchTip ?? ""], { cwd: wt });
	if (moved.code !== 0) throw new Error(`git update-ref ${handle.branch} failed: ${firstLine(moved.stderr)}`);
	return null;
}

/** The commit message of cadre's commit: names the type, description and terminal state (or the interruption). */
export function commitMessage(handle: FinishTarget, info: FinishInfo): string {
	const started = `Started from ${handle.base}${handle.parentBranch ? ` on ${handle.parentBranch}` : ""}`;
	if (info.status === "interrupted") {
		const { pid, host } = info.owner;
		return (
			`cadre: interrupted run ${handle.runId}\n\n` +
			`Work of the sub-agent run ${handle.runId}, which was interrupted: its parent process (pid ${pid} on ${host}) ` +
			"ended while the run was still going, so the run never finished.\n" +
			`${started}; committed by cadre when it recovered the worktree.\n`
		);
	}
	const description = info.description.replace(/\s+/g, " ").trim() || "(no description)";
	return (
		`cadre(${info.type}): ${description}\n\n` +
		`Work of the ${info.type} sub-agent run ${handle.runId}, which ended ${info.status}.\n` +
		`${started}; committed by cadre.\n`
	);
}

/**
 * Ends a run's isolation, whatever its terminal state: commits tracked and untracked changes to
 * `cadre/<run-id>` (`--no-verify`, unsigned), reports branch, commit and diff stat, and removes the
 * worktree — or returns it to the pool — only when nothing in it needs keeping (no changes, no
 * ignored files but the setup's untouched ones, no nested repositories). The worktree stays locked
 * until then. On any error the worktree is kept. Never throws.
 */
export async function finishWorktree(handle: FinishTarget, info: FinishInfo): Promise<WorktreeFinishReport> {
	const report: WorktreeFinishReport = {
		runId: handle.runId,
		worktreePath: handle.worktreePath,
		branch: handle.branch,
		commit: null,
		committed: false,
		changed: false,
		diffStat: null,
		kept: true,
		keptBecause: null,
		ignoredFiles: [],
		changedSetupFiles: [],
		nestedRepositories: [],
		offBranch: null,
		pooled: false,
		error: null,
		summary: "",
	};
	const wt = handle.worktreePath;
	try {
		if (!existsSync(join(wt, ".git"))) {
			// the directory may still be there without its `.git` file: then nothing is deleted
			report.kept = existsSync(wt);
			report.error = report.kept
				? `The worktree ${wt} lost its .git file, so git no longer sees it; what the child left there is still in that directory, uncommitted.`
				: `The worktree ${wt} no longer exists; anything the child left there uncommitted is gone.`;
			if (report.kept) report.keptBecause = "it is no longer a git worktree; copy what you need from it";
			const tip = readRef({ gitDir: handle.commonDir, commonDir: handle.commonDir }, `refs/heads/${handle.branch}`);
			report.commit = tip && tip !== handle.base ? tip : null;
			report.changed = report.commit !== null;
			await runGit(["worktree", "unlock", wt], { cwd: handle.repoRoot });
			await runGit(["worktree", "prune"], { cwd: handle.repoRoot });
			report.summary = summarize(handle, report);
			return report;
		}
		const status = await runGit([...FINGERPRINT_STATUS_ARGS, "--ignored=matching"], { cwd: wt });
		if (status.code !== 0) throw new Error(`git status failed in ${wt}: ${firstLine(status.stderr)}`);
		const parsed = parseStatus(status.stdout);
		const setup = handle.setup === undefined ? readSetupState(wt) : handle.setup;
		const ignored = setupChanges(wt, setup, parsed.entries.filter((e) => e.kind === "!").map((e) => e.path));
		report.ignoredFiles = ignored.other;
		report.changedSetupFiles = ignored.changed;
		report.nestedRepositories = parsed.entries.filter((e) => e.kind === "?" && e.path.endsWith("/")).map((e) => e.path);
		await commitLeftovers(handle, info, parsed.entries, report);
		const current = worktreeHead(wt, handle.commonDir);
		const tip = current?.head ?? parsed.head;
		if (tip && current?.ref !== `refs/heads/${handle.branch}`) report.offBranch = await bringBranchTo(handle, wt, tip, current?.ref ?? null);
		report.changed = tip !== null && tip !== handle.base;
		if (report.changed && tip) {
			report.commit = tip;
			report.diffStat = await diffStat(wt, handle.base, tip);
		}
		report.keptBecause = keepReasons(report);
		// another run (of any process) still works inside it: never removed or pooled under it (ADR 0116)
		const users = report.keptBecause === null ? liveUsers(handle.commonDir, wt) : [];
		if (users.length > 0) report.keptBecause = usersReason(users);
		if (report.keptBecause === null) await release(handle, setup, report);
	} catch (error) {
		report.error = (error as Error).message;
		report.kept = existsSync(wt);
		if (report.kept) report.keptBecause = "finishing failed; nothing was deleted";
	} finally {
		// a kept worktree is the user's now (unlock fails harmlessly when it is not locked, or gone)
		if (report.kept) await runGit(["worktree", "unlock", wt], { cwd: handle.repoRoot });
		if (handle.pool) countInUse(handle.pool.repoDir, -1);
	}
	report.summary = summarize(handle, report);
	return report;
}

/** Commits every tracked and untracked change the child left (nested repositories excluded). */
async function commitLeftovers(handle: FinishTarget, info: FinishInfo, entries: StatusEntry[], report: WorktreeFinishReport): Promise<void> {
	const uncommitted = entries.filter((e) => e.kind !== "!" && !(e.kind === "?" && e.path.endsWith("/")));
	if (uncommitted.length === 0) return;
	const wt = handle.worktreePath;
	const exclude = report.nestedRepositories.map((p) => `:(exclude,top)${p.replace(/\/$/, "")}`);
	const add = await runGit(["add", "-A", "--", ":(top)", ...exclude], { cwd: wt });
	if (add.code !== 0) throw new Error(`git add failed: ${firstLine(add.stderr)}`);
	const env = await commitIdentityEnv(wt);
	const commit = await runGit([...COMMIT_CONFIG, "commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m", commitMessage(handle, info)], {
		cwd: wt,
		env,
	});
	if (commit.code !== 0) throw new Error(`git commit failed: ${firstLine(commit.stderr) || firstLine(commit.stdout)}`);
	report.committed = true;
}

/** Why the worktree must be kept, in plain words, or null when nothing in it needs keeping. */
function keepReasons(report: WorktreeFinishReport): string | null {
	const reasons: string[] = [];
	if (report.offBranch) reasons.push(report.offBranch);
	if (report.ignoredFiles.length > 0) {
		reasons.push(`the child left ${plural(report.ignoredFiles.length, "ignored file")} git does not commit`);
	}
	if (report.changedSetupFiles.length > 0) {
		reasons.push(`the child changed ${plural(report.changedSetupFiles.length, "file")} that worktree setup made, which git does not commit`);
	}
	if (report.nestedRepositories.length > 0) {
		const n = report.nestedRepositories.length;
		reasons.push(`the child created ${n} nested git ${n === 1 ? "repository" : "repositories"}`);
	}
	if (reasons.length === 0) return null;
	const listed = [...report.ignoredFiles, ...report.changedSetupFiles.slice(0, 20), ...report.nestedRepositories];
	return `${reasons.join(" and ")}${listed.length > 0 ? `: ${listed.join(", ")}` : ""}`;
}

/**
 * Lets go of a worktree that holds nothing left to keep: back into the pool when it came from one
 * (or the pool has room) and can serve another run, else unlocked and removed. An unchanged branch
 * this run created goes with it.
 */
async function release(handle: FinishTarget, setup: SetupState | null, report: WorktreeFinishReport): Promise<void> {
	const wt = handle.worktreePath;
	const pool = handle.pool ?? null;
	const returned = pool && (await notReusable(wt)) === null ? await returnToPool(wt, { root: handle.repoRoot, ...pool, setup }) : "full";
	report.pooled = returned === "pooled";
	if (returned === "full") {
		await runGit(["worktree", "unlock", wt], { cwd: handle.repoRoot });
		const removed = await runGit(["worktree", "remove", wt], { cwd: handle.repoRoot });
		if (removed.code !== 0) throw new Error(`git worktree remove failed: ${firstLine(removed.stderr)}`);
		removeIfEmpty(dirname(wt));
	}
	report.kept = false;
	if (!report.changed && handle.createdBranch) {
		await runGit(["branch", "-D", handle.branch], { cwd: handle.repoRoot });
		report.branch = null;
	}
}

function summarize(handle: FinishTarget, report: WorktreeFinishReport): string {
	const parts: string[] = [];
	if (report.offBranch && report.commit) {
		parts.push(
			`isolation: worktree — the child's last work is at ${report.commit.slice(0, 12)} in its worktree, ` +
				`not on ${handle.branch}; review it there before applying anything.`,
		);
	} else if (report.changed && report.commit) {
		const stat = report.diffStat ? ` (${report.diffStat.summary})` : "";
		parts.push(
			`isolation: worktree — the child's changes are on branch ${handle.branch} at ${report.commit.slice(0, 12)}${stat}, ` +
				`not in the parent's files. Review with \`git diff ${handle.base.slice(0, 12)} ${handle.branch}\`, ` +
				`apply with \`cadre worktrees apply ${handle.runId}\`.`,
		);
	} else {
		parts.push("isolation: worktree — the child changed no tracked or untracked file.");
	}
	if (report.kept) {
		parts.push(`The worktree ${report.worktreePath} was kept${report.keptBecause ? ` because ${report.keptBecause}` : ""}.`);
	} else {
		parts.push(report.pooled ? "Its worktree went back to the pool for the next isolated child." : "Its worktree was removed.");
	}
	if (report.error) parts.push(`Problem: ${report.error}`);
	for (const notice of handle.notices) parts.push(notice);
	return parts.join(" ");
}
