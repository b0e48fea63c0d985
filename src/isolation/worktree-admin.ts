/**
 * Managing what isolated runs left behind (spec 05 "Applying back"): list cadre's worktrees and
 * `cadre/*` branches with their state, apply a branch to the parent's current branch without ever
 * leaving a half-applied tree, and clean worktrees that hold nothing left to keep. Plain functions
 * returning plain data, shared by `cadre worktrees` and the pi `/subagents` command.
 */
import { existsSync, rmdirSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { checkEscape, type Fingerprint, FINGERPRINT_STATUS_ARGS, parseStatus, takeFingerprint } from "./escape-check.ts";
import { clobberedIgnored, operationInProgress, splitPaths } from "./apply-guards.ts";
import { firstLine, readHead, readRef, type RepoFacts, repoFacts, runGit } from "./git.ts";
import type { Owner } from "../runtime/owner.ts";
import {
	branchBases,
	commitIdentityEnv,
	type DiffStat,
	diffStat,
	isValidRunId,
	type WorktreeRecord,
	worktreeRecords,
} from "./worktree.ts";
import { mergeWorkOnto, uncommittedBaseOf, uncommittedBases } from "./uncommitted.ts";
import { lockHolder } from "./worktree-lock.ts";
import { isPoolPath, type PoolCleanResult, type PooledWorktree, pooledWorktrees, removePooled } from "./worktree-pool.ts";
import { type RecoveredWorktree, recoverInterrupted } from "./worktree-recovery.ts";
import { liveUsers, usersReason } from "./worktree-users.ts";

/** A failure to even look at the repository. */
export interface AdminFailure {
	ok: false;
	code: "not-a-repository" | "git-missing";
	message: string;
	hint: string;
}

/** One isolated run's leftovers: its branch, its worktree, or both. */
export interface CadreWorktreeEntry {
	/** The run id (`cadre/<id>`). */
	id: string;
	/** `cadre/<id>` when the branch exists, else null. */
	branch: string | null;
	/** The branch tip, or null. */
	commit: string | null;
	/** The tip's subject line, or null. */
	subject: string | null;
	/** The tip's committer date (ISO 8601), or null. */
	date: string | null;
	/** The commit the branch was created from (its reflog's first entry), or null when unknown. */
	base: string | null;
	/** Whether the branch holds work: commits beyond its base (true when the base is unknown). */
	hasWork: boolean;
	/**
	 * Whether the branch holds work and that work is in the parent's HEAD: merged, or — for a branch
	 * started from the parent's uncommitted changes — applying it would change nothing.
	 */
	applied: boolean;
	/** Whether the branch starts at a base commit of the parent's uncommitted changes (`copy_uncommitted`, ADR 0087). */
	fromUncommitted: boolean;
	/** The worktree directory when git still records one for this branch, else null. */
	worktreePath: string | null;
	/** Whether that directory exists (false: git's record is stale and `clean` prunes it). */
	worktreeExists: boolean;
	/** Whether the worktree is locked: a run is using it (cadre locks it while the run lasts), or was interrupted. */
	locked: boolean;
	/** The process the lock names as the run's owner, or null (not locked, or a lock cadre did not write). */
	owner: Owner | null;
	/** Whether that owner is gone: the run was interrupted and `clean` recovers its work. */
	interrupted: boolean;
	/** Paths in the worktree not committed to the branch (tracked changes and untracked files). */
	uncommitted: string[];
	/** Ignored files and directories in the worktree. */
	ignored: string[];
	/** One word for tables: `applied`, `unapplied`, `empty` (no work, no worktree), `kept`, `dirty`, `stale`. */
	state: "applied" | "unapplied" | "empty" | "kept" | "dirty" | "stale";
}

/** What `listCadreWorktrees` found. */
export interface WorktreeListing {
	ok: true;
	repoRoot: string;
	/** The parent's branch, or null when detached. */
	currentBranch: string | null;
	entries: CadreWorktreeEntry[];
	/** The worktree pool's worktrees (ADR 0085): idle ones wait for the next isolated spawn. */
	pool: PooledWorktree[];
}

/** The repository containing `cwd`, or why there is none (with what to do). */
export async function openRepo(cwd: string): Promise<{ ok: true; facts: RepoFacts } | AdminFailure> {
	const repo = await repoFacts(cwd);
	if (repo.ok) return repo;
	return {
		ok: false,
		code: repo.code,
		message: repo.message,
		hint: repo.code === "git-missing" ? "Install git or put it on PATH." : "Run the command inside the repository (or pass --cwd).",
	};
}

/** Lists every `cadre/*` branch and every worktree checked out on one, with their state. */
export async function listCadreWorktrees(cwd: string): Promise<WorktreeListing | AdminFailure> {
	const repo = await openRepo(cwd);
	if (!repo.ok) return repo;
	const root = repo.facts.root;
	const { head, branch: currentBranch } = readHead(repo.facts);
	const format = "%(refname:lstrip=3)%00%(objectname)%00%(committerdate:iso-strict)%00%(subject)";
	const [refs, merged, records, bases] = await Promise.all([
		runGit(["for-each-ref", `--format=${format}`, "refs/heads/cadre/"], { cwd: root }),
		head
			? runGit(["for-each-ref", "--format=%(refname:lstrip=3)", "--merged", head, "refs/heads/cadre/"], { cwd: root })
			: Promise.resolve({ code: 0, stdout: "", stderr: "" }),
		worktreeRecords(root),
		branchBases(root),
	]);
	const mergedIds = new Set(merged.stdout.split("\n").filter((line) => line !== ""));
	const byId = new Map<string, CadreWorktreeEntry>();
	const entry = (id: string): CadreWorktreeEntry => {
		let found = byId.get(id);
		if (!found) {
			found = {
				id,
				branch: null,
				commit: null,
				subject: null,
				date: null,
				base: null,
				hasWork: false,
				applied: false,
				fromUncommitted: false,
				worktreePath: null,
				worktreeExists: false,
				locked: false,
				owner: null,
				interrupted: false,
				uncommitted: [],
				ignored: [],
				state: "unapplied",
			};
			byId.set(id, found);
		}
		return found;
	};
	for (const line of refs.stdout.split("\n")) {
		if (line === "") continue;
		const [id, commit, date, subject] = line.split("\0") as [string, string, string, string];
		const base = bases.get(id) ?? null;
		const hasWork = base === null || base !== commit;
		Object.assign(entry(id), { branch: `cadre/${id}`, commit, date, subject, base, hasWork, applied: hasWork && mergedIds.has(id) });
	}
	if (head) await markAppliedWork(root, head, [...byId.values()]);
	const kept: [CadreWorktreeEntry, WorktreeRecord][] = [];
	for (const record of records) {
		if (!record.branch?.startsWith("refs/heads/cadre/")) continue;
		const found = entry(record.branch.slice("refs/heads/cadre/".length));
		found.worktreePath = record.path;
		found.worktreeExists = existsSync(join(record.path, ".git"));
		const holder = lockHolder(record);
		found.locked = holder.state !== "unlocked";
		found.owner = holder.owner;
		found.interrupted = holder.state === "interrupted";
		if (found.worktreeExists) kept.push([found, record]);
	}
	await Promise.all(
		kept.map(async ([found, record]) => {
			const status = await runGit([...FINGERPRINT_STATUS_ARGS, "--ignored=matching"], { cwd: record.path });
			const parsed = parseStatus(status.stdout);
			found.uncommitted = parsed.entries.filter((e) => e.kind !== "!").map((e) => e.path);
			found.ignored = parsed.entries.filter((e) => e.kind === "!").map((e) => e.path);
		}),
	);
	for (const found of byId.values()) {
		if (found.worktreePath && !found.worktreeExists) found.state = "stale";
		else if (found.uncommitted.length > 0) found.state = "dirty";
		else if (found.worktreePath) found.state = "kept";
		else if (found.branch && !found.hasWork) found.state = "empty";
		else found.state = found.applied ? "applied" : "unapplied";
	}
	const entries = [...byId.values()].sort((a, b) => (a.date ?? "").localeCompare(b.date ?? "") || a.id.localeCompare(b.id));
	return { ok: true, repoRoot: root, currentBranch, entries, pool: pooledWorktrees(records) };
}

/**
 * Marks the branches that start from a base commit of the parent's uncommitted changes, and calls
 * one applied when its work (after that commit) is in HEAD: merging it onto HEAD changes nothing.
 */
async function markAppliedWork(root: string, head: string, entries: CadreWorktreeEntry[]): Promise<void> {
	const withBase = entries.filter((e) => e.base !== null && e.commit !== null);
	const snapshots = await uncommittedBases(root, [...new Set(withBase.map((e) => e.base as string))]);
	const pending = withBase.filter((e) => snapshots.has(e.base as string));
	if (pending.length === 0) return;
	const headTree = (await runGit(["rev-parse", `${head}^{tree}`], { cwd: root })).stdout.trim();
	await Promise.all(
		pending.map(async (e) => {
			e.fromUncommitted = true;
			if (!e.hasWork || e.applied) return;
			const merged = await mergeWorkOnto(root, head, e.base as string, e.commit as string);
			e.applied = merged !== null && merged.conflicts.length === 0 && merged.tree === headTree;
		}),
	);
}

/** What applying a branch did. */
export interface ApplyResult {
	ok: boolean;
	/**
	 * `applied` (merged or fast-forwarded), `already-applied`, `conflict` (tree untouched or restored),
	 * `refused` (nothing was attempted: say what to do), `failed` (git failed; see `message`).
	 */
	outcome: "applied" | "already-applied" | "conflict" | "refused" | "failed";
	message: string;
	/** What the user can do next, or null. */
	hint: string | null;
	/** Conflicting paths (outcome `conflict`) or the dirty paths that blocked it (`refused`). */
	paths: string[];
	/** The parent's HEAD after applying (outcome `applied`), else null. */
	commit: string | null;
	/** Whether the parent's branch was simply moved forward to the cadre branch. */
	fastForward: boolean;
	diffStat: DiffStat | null;
}

/** Options of `applyCadreWorktree`. */
export interface ApplyOptions {
	/** The parent's directory (any directory inside the repository). */
	cwd: string;
	/** The run id: applies `cadre/<id>`. */
	id: string;
	/**
	 * Check for conflicts with `git merge-tree` before touching the tree (default true). With false,
	 * or when git is too old for `merge-tree --write-tree`, the merge runs and is aborted on conflict.
	 */
	preflight?: boolean;
}

function result(outcome: ApplyResult["outcome"], message: string, extra: Partial<ApplyResult> = {}): ApplyResult {
	return {
		ok: outcome === "applied" || outcome === "already-applied",
		outcome,
		message,
		hint: null,
		paths: [],
		commit: null,
		fastForward: false,
		diffStat: null,
		...extra,
	};
}

/**
 * Merges `cadre/<id>` into the parent's current branch (fast-forward when possible). Never leaves a
 * half-applied state: it refuses up front when uncommitted parent changes could be lost, checks for
 * conflicts without touching the tree, and when a merge fails anyway it aborts and verifies that the
 * parent's tree and index are exactly as before.
 */
export async function applyCadreWorktree(options: ApplyOptions): Promise<ApplyResult> {
	const repo = await openRepo(options.cwd);
	if (!repo.ok) return result("refused", repo.message, { hint: repo.hint });
	const facts = repo.facts;
	const root = facts.root;
	const branch = `cadre/${options.id}`;
	if (!isValidRunId(options.id)) {
		return result("refused", `"${options.id}" is not a run id, so there is no branch ${branch} to apply.`, {
			hint: "Run `cadre worktrees list` to see the ids cadre kept.",
		});
	}
	const tip = readRef(facts, `refs/heads/${branch}`);
	if (!tip) {
		return result("refused", `There is no branch ${branch} in ${root}.`, {
			hint: "Run `cadre worktrees list` to see the ids cadre kept.",
		});
	}
	const { head, branch: current } = readHead(facts);
	if (!head) return result("refused", `${root} has no commit to apply ${branch} to.`, { hint: "Commit once first." });
	const busy = operationInProgress(facts.gitDir);
	if (busy) {
		return result("refused", `${root} is in the middle of ${busy}.`, {
			hint: "Finish or abort it (git status shows how), then apply again.",
		});
	}
	const [ancestor, records] = await Promise.all([
		runGit(["merge-base", "--is-ancestor", tip, head], { cwd: root }),
		worktreeRecords(root),
	]);
	const running = records.find((r) => r.branch === `refs/heads/${branch}` && r.locked);
	if (running && lockHolder(running).state === "interrupted") {
		return result("refused", `The run ${options.id} was interrupted (its parent process is gone); its work is still uncommitted in ${running.path}, not on ${branch}.`, {
			hint: `Run \`cadre worktrees clean\` to commit it to ${branch}, then \`cadre worktrees apply ${options.id}\`.`,
		});
	}
	if (running) {
		return result("refused", `The run ${options.id} is still in progress in ${running.path}; ${branch} does not hold its work yet.`, {
			hint: `Wait until it ends (its work is committed then), then run \`cadre worktrees apply ${options.id}\`.`,
		});
	}
	if (ancestor.code === 0) {
		return result("already-applied", `${branch} is already contained in ${current ?? "HEAD"}; nothing to apply.`, {
			commit: head,
		});
	}
	// a run started from the parent's uncommitted changes: its work is what follows their base commit
	const base = await uncommittedBaseOf(root, options.id, head, tip);
	if (base === tip) {
		return result("already-applied", `${branch} holds no work beyond the uncommitted changes it started from; nothing to apply.`, { commit: head });
	}
	const [before, changedOnBranch] = await Promise.all([
		takeFingerprint(root, { content: true }),
		runGit(["diff", "--name-only", "-z", "--no-renames", ...(base ? [base, tip] : [`${head}...${tip}`])], { cwd: root }),
	]);
	const staged = Object.entries(before.entries)
		.filter(([, state]) => state.startsWith("u ") || (state.startsWith("1 ") && state[2] !== "."))
		.map(([path]) => path);
	if (staged.length > 0) {
		return result("refused", `The index of ${root} has staged or unmerged changes: ${staged.join(", ")}.`, {
			paths: staged,
			hint: `Commit them or unstage them (git restore --staged <path>), then run \`cadre worktrees apply ${options.id}\` again.`,
		});
	}
	const touched = new Set(splitPaths(changedOnBranch.stdout));
	const overlap = Object.keys(before.entries).filter((path) => touched.has(path));
	if (overlap.length > 0) {
		return result(
			"refused",
			`${branch} changes files that have uncommitted changes in ${root}: ${overlap.join(", ")}. Applying could lose them.`,
			{
				paths: overlap,
				hint: `Commit or stash them (git stash -u), then run \`cadre worktrees apply ${options.id}\` again.`,
			},
		);
	}
	// git overwrites ignored files silently; a branch that adds a file the parent keeps ignored (an
	// `.env` the child un-ignored) would replace the parent's own copy.
	const clobbered = await clobberedIgnored(root, touched);
	if (clobbered.length > 0) {
		return result(
			"refused",
			`${branch} adds files that exist in ${root} as ignored files: ${clobbered.join(", ")}. Applying would overwrite them.`,
			{
				paths: clobbered,
				hint: `Move them aside (or compare them with \`git show ${branch}:<path>\`), then run \`cadre worktrees apply ${options.id}\` again.`,
			},
		);
	}
	const target: ApplyTarget = { facts, branch, current, id: options.id, head, tip, before };
	return base ? applyWorkAfter(target, base) : mergeBranch(target, options.preflight !== false);
}

/** What both ways of applying need: the repository, the branch and where HEAD is, and the parent's state before. */
interface ApplyTarget {
	facts: RepoFacts;
	branch: string;
	current: string | null;
	id: string;
	head: string;
	tip: string;
	before: Fingerprint;
}

/** Merges the branch (a fast-forward when HEAD has not moved), after a conflict check that touches nothing. */
async function mergeBranch(t: ApplyTarget, preflight: boolean): Promise<ApplyResult> {
	const root = t.facts.root;
	if (preflight) {
		const check = await runGit(["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", t.head, t.tip], { cwd: root });
		if (check.code === 1) return conflict(t.branch, t.current, [...new Set(splitPaths(check.stdout).slice(1))], t.id);
		// code 0: a clean merge; anything else (an old git): let the merge itself find out
	}
	const env = await commitIdentityEnv(root);
	const merge = await runGit(["merge", "--no-edit", "-m", `Apply ${t.branch} (cadre sub-agent run ${t.id})`, t.tip], { cwd: root, env });
	if (merge.code !== 0) return restoreAfterFailedMerge(root, t.facts.gitDir, t.before, t.branch, t.current, t.id, merge.stderr || merge.stdout);
	const after = readHead(t.facts).head ?? t.head;
	return result("applied", `Applied ${t.branch} to ${t.current ?? "HEAD"}.`, {
		commit: after,
		fastForward: after === t.tip,
		diffStat: await diffStat(root, t.head, after),
	});
}

/**
 * Applies the work of a branch that started from a base commit of the parent's uncommitted changes
 * (ADR 0087): only what follows `base`, merged onto HEAD with `base` as the merge base, as one new
 * commit on HEAD (`git merge --ff-only` to it, which keeps unrelated uncommitted changes). The base
 * commit itself never reaches the parent's branch, so its changes are not applied a second time.
 */
async function applyWorkAfter(t: ApplyTarget, base: string): Promise<ApplyResult> {
	const root = t.facts.root;
	const merged = await mergeWorkOnto(root, t.head, base, t.tip);
	if (!merged) {
		return result("refused", `Applying ${t.branch} needs git 2.38 or newer (git merge-tree --write-tree).`, {
			hint: `Update git, or apply the run's own commits by hand: git cherry-pick ${base.slice(0, 12)}..${t.branch}`,
		});
	}
	if (merged.conflicts.length > 0) return conflict(t.branch, t.current, merged.conflicts, t.id);
	const headTree = await runGit(["rev-parse", `${t.head}^{tree}`], { cwd: root });
	if (headTree.stdout.trim() === merged.tree) {
		return result("already-applied", `The work on ${t.branch} is already in ${t.current ?? "HEAD"}; nothing to apply.`, { commit: t.head });
	}
	const env = await commitIdentityEnv(root);
	const message =
		`Apply ${t.branch} (cadre sub-agent run ${t.id})\n\n` +
		`The run's own work, ${base.slice(0, 12)}..${t.tip.slice(0, 12)}; the uncommitted changes it started from (${base.slice(0, 12)}) are not part of it.\n`;
	const made = await runGit(["commit-tree", "--no-gpg-sign", merged.tree, "-p", t.head, "-m", message], { cwd: root, env });
	if (made.code !== 0) return result("failed", `git commit-tree failed: ${firstLine(made.stderr)}. Your files are unchanged.`, { hint: "Fix what git reports, then apply again." });
	const commit = made.stdout.trim();
	const moved = await runGit(["merge", "--ff-only", "--no-edit", commit], { cwd: root, env });
	if (moved.code !== 0) return restoreAfterFailedMerge(root, t.facts.gitDir, t.before, t.branch, t.current, t.id, moved.stderr || moved.stdout);
	return result("applied", `Applied the work of ${t.branch} to ${t.current ?? "HEAD"} (not the uncommitted changes it started from).`, {
		commit,
		fastForward: false,
		diffStat: await diffStat(root, t.head, commit),
	});
}

function conflict(branch: string, current: string | null, paths: string[], id: string): ApplyResult {
	return result(
		"conflict",
		`${branch} conflicts with ${current ?? "HEAD"} in ${paths.length} path(s): ${paths.join(", ")}. Nothing was applied; your files are unchanged.`,
		{
			paths,
			hint: `Resolve it by hand (git merge ${branch}), or discard the run's work (git branch -D ${branch}); \`cadre worktrees apply ${id}\` only applies cleanly merging work.`,
		},
	);
}

async function restoreAfterFailedMerge(
	root: string,
	gitDir: string,
	before: Fingerprint,
	branch: string,
	current: string | null,
	id: string,
	gitMessage: string,
): Promise<ApplyResult> {
	let conflicts: string[] = [];
	if (existsSync(join(gitDir, "MERGE_HEAD"))) {
		const unmerged = await runGit(["diff", "--name-only", "-z", "--diff-filter=U"], { cwd: root });
		conflicts = splitPaths(unmerged.stdout);
		await runGit(["merge", "--abort"], { cwd: root });
	}
	const after = await takeFingerprint(root, { content: true });
	const report = checkEscape(before, after, new Set());
	if (report.paths.length > 0 || report.headMoved) {
		return result(
			"failed",
			`The merge of ${branch} failed (${firstLine(gitMessage)}) and the tree could not be restored exactly: ${report.warning}`,
			{ paths: report.paths, hint: "Inspect with git status; git reflog shows where HEAD was." },
		);
	}
	if (conflicts.length > 0) return conflict(branch, current, conflicts, id);
	return result("failed", `git could not merge ${branch}: ${firstLine(gitMessage)}. Your files are unchanged.`, {
		hint: "Fix what git reports, then apply again.",
	});
}

/** What `cleanCadreWorktrees` did. */
export interface CleanResult {
	ok: true;
	/** Interrupted worktrees (their run's parent process is gone) whose work was committed to the branch first. */
	recovered: RecoveredWorktree[];
	/** Worktrees removed (nothing in them was uncommitted or ignored). */
	removed: { id: string; path: string }[];
	/** Worktrees kept, with why. */
	kept: { id: string; path: string; reason: string }[];
	/** `cadre/*` branches deleted because they were already applied, or held no work, and had no worktree left. */
	deletedBranches: string[];
	/** Those of `deletedBranches` that held no work (still at the commit they were created from). */
	emptyBranches: string[];
	/** Branches kept because their work is not applied yet. */
	unappliedBranches: string[];
	/** Pooled worktrees removed (idle, or left half-handled by a pi that died) and kept (with why). */
	pool: PoolCleanResult;
}

/** Why `clean` keeps a locked worktree, naming the lock's owner when cadre wrote the lock. */
function lockedReason(entry: CadreWorktreeEntry, path: string): string {
	const unlock = `\`git worktree unlock ${path}\` and clean again`;
	const owner = entry.owner;
	if (!owner) return `locked: a run is still using it (if none is, ${unlock})`;
	if (owner.host !== hostname()) {
		return `locked by a run on the host ${owner.host}, which cadre cannot check from here (if it has ended, ${unlock})`;
	}
	return `locked: a run is still using it (process ${owner.pid})`;
}

/**
 * Recovers interrupted worktrees (their run's parent process is gone: the work is committed to the
 * branch first), removes cadre worktrees with nothing left to keep (not locked by a running run, no
 * uncommitted, untracked or ignored files — their work is on the branch), prunes git's stale
 * worktree records, and deletes `cadre/*` branches without a worktree that are already applied or
 * hold no work. Unapplied work is never deleted.
 */
export async function cleanCadreWorktrees(cwd: string): Promise<CleanResult | AdminFailure> {
	const repo = await openRepo(cwd);
	if (!repo.ok) return repo;
	const root = repo.facts.root;
	const records = await worktreeRecords(root);
	// an interrupted run's work is committed first; what cannot be committed keeps its worktree
	const recovered = await recoverInterrupted(repo.facts, records);
	const pool = await removePooled(repo.facts, pooledWorktrees(records), "all");
	// git never prunes a locked record; a cadre worktree whose directory is gone has nothing left to
	// protect (its run lost it, or pi ended without unlocking), so unlock it first
	const vanished = records.filter((r) => r.locked && (r.branch?.startsWith("refs/heads/cadre/") || isPoolPath(r.path)) && !existsSync(join(r.path, ".git")));
	await Promise.all(vanished.map((r) => runGit(["worktree", "unlock", r.path], { cwd: root })));
	await runGit(["worktree", "prune"], { cwd: root });
	const listing = await listCadreWorktrees(cwd);
	if (!listing.ok) return listing;
	const outcome: CleanResult = { ok: true, recovered, removed: [], kept: [], deletedBranches: [], emptyBranches: [], unappliedBranches: [], pool };
	for (const entry of listing.entries) {
		let hasWorktree = entry.worktreePath !== null && entry.worktreeExists;
		if (hasWorktree && entry.worktreePath) {
			const path = entry.worktreePath;
			if (entry.locked) {
				outcome.kept.push({ id: entry.id, path, reason: lockedReason(entry, path) });
			} else if (liveUsers(repo.facts.commonDir, path).length > 0) {
				outcome.kept.push({ id: entry.id, path, reason: usersReason(liveUsers(repo.facts.commonDir, path)) });
			} else if (entry.uncommitted.length > 0 || entry.ignored.length > 0) {
				const reasons: string[] = [];
				if (entry.uncommitted.length > 0) reasons.push(`uncommitted changes: ${entry.uncommitted.join(", ")}`);
				if (entry.ignored.length > 0) reasons.push(`ignored files: ${entry.ignored.join(", ")}`);
				outcome.kept.push({ id: entry.id, path, reason: reasons.join("; ") });
			} else {
				const removed = await runGit(["worktree", "remove", path], { cwd: root });
				if (removed.code === 0) {
					outcome.removed.push({ id: entry.id, path });
					hasWorktree = false;
					try {
						rmdirSync(dirname(path));
					} catch {
						// other worktrees remain in the folder
					}
				} else {
					outcome.kept.push({ id: entry.id, path, reason: firstLine(removed.stderr) });
				}
			}
		}
		if (!entry.branch || hasWorktree) continue;
		if (entry.applied) {
			// a branch applied from after its base commit is not merged, only its work is: -D after that check
			const deleted = await runGit(["branch", entry.fromUncommitted ? "-D" : "-d", entry.branch], { cwd: root });
			if (deleted.code === 0) outcome.deletedBranches.push(entry.branch);
		} else if (!entry.hasWork) {
			// still at the commit it was created from: deleting it loses nothing of a run
			const deleted = await runGit(["branch", "-D", entry.branch], { cwd: root });
			if (deleted.code === 0) {
				outcome.deletedBranches.push(entry.branch);
				outcome.emptyBranches.push(entry.branch);
			}
		} else {
			outcome.unappliedBranches.push(entry.branch);
		}
	}
	return outcome;
}
