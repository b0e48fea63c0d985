/**
 * The merge queue (`cadre worktrees apply --all`, ADR 0115): every finished, unapplied `cadre/<id>`
 * branch merged onto the parent's current branch one at a time, in the order the runs finished.
 * Each merge is made as a commit without touching the parent's files (`git merge-tree`), checked
 * out in one temporary worktree, and verified there (settings `worktree.verify`, or the run's own
 * `verify`); only then does the parent's branch move forward to it (`git merge --ff-only`). The
 * queue stops at the first conflict, failing verify or refusal: what was merged before stays
 * applied, the failing branch is not, and the parent's branch and files are exactly as after the
 * last applied merge. A dirty working tree is refused before anything is done.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runVerify, type VerifyCommand, type VerifyResult } from "../runtime/verify.ts";
import { clobberedIgnored, operationInProgress, splitPaths } from "./apply-guards.ts";
import { firstLine, readHead, type RepoFacts, runGit } from "./git.ts";
import { mergeWorkOnto, uncommittedBaseOf } from "./uncommitted.ts";
import { type AdminFailure, type CadreWorktreeEntry, listCadreWorktrees, openRepo } from "./worktree-admin.ts";
import { commitIdentityEnv, type DiffStat, diffStat } from "./worktree.ts";

/** One branch in the queue, in finish order. */
export interface QueuedBranch {
	id: string;
	branch: string;
	commit: string;
	subject: string | null;
	/** When the run finished (its branch's last update), ISO 8601. */
	finishedAt: string;
	/** The verify command this branch's merge runs, or null (merged without one). */
	verify: { command: string; source: "settings" | "run" } | null;
}

/** What the queue did with one branch. */
export interface QueueStep {
	id: string;
	branch: string;
	/** `applied`; `already-applied` (nothing to merge); `conflict`, `verify-failed`, `refused`, `failed` stop the queue. */
	outcome: "applied" | "already-applied" | "conflict" | "verify-failed" | "refused" | "failed";
	message: string;
	/** The conflicting paths, or the parent's files that blocked it. */
	paths: string[];
	/** The parent's HEAD after this step (applied), else null. */
	commit: string | null;
	fastForward: boolean;
	diffStat: DiffStat | null;
	verify: VerifyResult | null;
}

/** What `runMergeQueue` did (or, with `dryRun`, would do). */
export interface MergeQueueResult {
	ok: boolean;
	/** `applied` (every branch), `nothing` (no branch to merge), `dry-run`, `stopped` (at a step), `refused` (nothing attempted). */
	outcome: "applied" | "nothing" | "dry-run" | "stopped" | "refused";
	message: string;
	hint: string | null;
	repoRoot: string | null;
	currentBranch: string | null;
	/** HEAD before the queue ran, and after. */
	startCommit: string | null;
	endCommit: string | null;
	/** The branches in the order they are merged. */
	queue: QueuedBranch[];
	/** What happened to each branch the queue reached (none for a dry run). */
	steps: QueueStep[];
	/** Branches left out, with why (a run still in progress, an interrupted one, uncommitted work). */
	skipped: { id: string; reason: string }[];
	/** The parent's files that made it refuse (a dirty working tree). */
	paths: string[];
}

/** Options of `runMergeQueue`. */
export interface MergeQueueOptions {
	/** Any directory inside the repository. */
	cwd: string;
	/** List what would be merged, in what order, and do nothing. */
	dryRun?: boolean;
	/** Settings `worktree.verify` (trusted sources only; the caller loads it): wins over a run's own. */
	verify?: VerifyCommand | null;
	/** A run's own `verify` (from its stored config), used when settings have none. */
	verifyFor?: (id: string) => VerifyCommand | null;
	/** Where the temporary worktree goes (default: the system's temp directory). */
	tempDir?: string;
}

function outcome(kind: MergeQueueResult["outcome"], message: string, extra: Partial<MergeQueueResult> = {}): MergeQueueResult {
	return {
		ok: kind === "applied" || kind === "nothing" || kind === "dry-run",
		outcome: kind,
		message,
		hint: null,
		repoRoot: null,
		currentBranch: null,
		startCommit: null,
		endCommit: null,
		queue: [],
		steps: [],
		skipped: [],
		paths: [],
		...extra,
	};
}

/** The verify command of one branch's merge: settings `worktree.verify`, else the run's own, else none. */
function verifyOf(options: MergeQueueOptions, id: string): { command: VerifyCommand; source: "settings" | "run" } | null {
	if (options.verify) return { command: options.verify, source: "settings" };
	const own = options.verifyFor?.(id) ?? null;
	return own ? { command: own, source: "run" } : null;
}

/** Why a branch is not in the queue, or null when it is. */
function skipReason(entry: CadreWorktreeEntry): string | null {
	if (entry.interrupted) return "its run was interrupted; `cadre worktrees clean` commits its work first";
	if (entry.locked) return "its run is still in progress";
	if (entry.worktreePath && !entry.worktreeExists) return "git records a worktree that is gone; `cadre worktrees clean` prunes it";
	if (entry.uncommitted.length > 0) return `its worktree has work not on the branch: ${entry.uncommitted.join(", ")}`;
	return null;
}

/** When a run finished: its branch's last update (the reflog's mtime), else the tip's commit date. */
function finishedAt(facts: RepoFacts, entry: CadreWorktreeEntry): number {
	try {
		return statSync(join(facts.commonDir, "logs", "refs", "heads", "cadre", entry.id)).mtimeMs;
	} catch {
		return Date.parse(entry.date ?? "") || 0;
	}
}

/** The finished, unapplied branches in finish order, and those left out. */
async function planQueue(facts: RepoFacts, cwd: string, options: MergeQueueOptions) {
	const listing = await listCadreWorktrees(cwd);
	if (!listing.ok) return listing;
	const queue: (QueuedBranch & { at: number })[] = [];
	const skipped: { id: string; reason: string }[] = [];
	for (const entry of listing.entries) {
		if (!entry.branch || !entry.commit || !entry.hasWork || entry.applied) continue;
		const reason = skipReason(entry);
		if (reason) {
			skipped.push({ id: entry.id, reason });
			continue;
		}
		const chosen = verifyOf(options, entry.id);
		const verify = chosen ? { command: chosen.command.command, source: chosen.source } : null;
		const at = finishedAt(facts, entry);
		queue.push({ id: entry.id, branch: entry.branch, commit: entry.commit, subject: entry.subject, finishedAt: new Date(at).toISOString(), verify, at });
	}
	queue.sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
	return { ok: true as const, listing, queue: queue.map(({ at: _, ...rest }) => rest), skipped };
}

/** Checks before anything is done: a commit to merge onto, no operation in progress, a clean working tree. */
async function refusal(facts: RepoFacts, head: string | null): Promise<MergeQueueResult | null> {
	if (!head) return outcome("refused", `${facts.root} has no commit to merge onto.`, { hint: "Commit once first." });
	const busy = operationInProgress(facts.gitDir);
	if (busy) return outcome("refused", `${facts.root} is in the middle of ${busy}.`, { hint: "Finish or abort it (git status shows how), then run the queue again." });
	const status = await runGit(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"], { cwd: facts.root });
	if (status.code !== 0) return outcome("refused", `git status failed in ${facts.root}: ${firstLine(status.stderr)}.`, { hint: "Fix what git reports, then run the queue again." });
	const dirty = splitPaths(status.stdout).map((line) => line.slice(3));
	if (dirty.length === 0) return null;
	return outcome("refused", `The working tree of ${facts.root} has uncommitted changes: ${dirty.join(", ")}. The merge queue only runs on a clean tree.`, {
		paths: dirty,
		hint: "Commit or stash them (git stash -u), then run `cadre worktrees apply --all` again.",
	});
}

/**
 * Merges every finished, unapplied `cadre/<id>` branch onto the current branch in finish order,
 * verifying each merged tree before the branch moves (see the module comment).
 */
export async function runMergeQueue(options: MergeQueueOptions): Promise<MergeQueueResult> {
	const repo = await openRepo(options.cwd);
	if (!repo.ok) return refusedRepo(repo);
	const facts = repo.facts;
	const { head, branch: currentBranch } = readHead(facts);
	const refused = await refusal(facts, head);
	const base = { repoRoot: facts.root, currentBranch, startCommit: head, endCommit: head };
	if (refused) return { ...refused, ...base };
	const plan = await planQueue(facts, options.cwd, options);
	if (!plan.ok) return refusedRepo(plan);
	const planned = { ...base, queue: plan.queue, skipped: plan.skipped };
	const onto = currentBranch ?? "HEAD";
	if (plan.queue.length === 0) return outcome("nothing", `No finished, unapplied cadre branch to merge onto ${onto}.`, planned);
	if (options.dryRun) {
		return outcome("dry-run", `Would merge ${plan.queue.length} branch(es) onto ${onto}, in this order: ${plan.queue.map((q) => q.branch).join(", ")}.`, planned);
	}
	const steps = await mergeAll(facts, head as string, plan.queue, options);
	const endCommit = readHead(facts).head;
	const last = steps.at(-1);
	if (last && last.outcome !== "applied" && last.outcome !== "already-applied") {
		const applied = steps.filter((s) => s.outcome === "applied").length;
		return outcome("stopped", `The merge queue stopped at ${last.branch}: ${last.message} ${applied} branch(es) were applied before it; ${onto} is as after the last of them.`, {
			...planned,
			steps,
			endCommit,
			paths: last.paths,
			hint: stopHint(last),
		});
	}
	return outcome("applied", `Merged ${steps.length} branch(es) onto ${onto}, each verified before ${onto} moved.`, { ...planned, steps, endCommit });
}

function refusedRepo(failure: AdminFailure): MergeQueueResult {
	return outcome("refused", failure.message, { hint: failure.hint });
}

function stopHint(step: QueueStep): string {
	if (step.outcome === "conflict") return `Resolve it by hand (git merge ${step.branch}) or drop the run's work (git branch -D ${step.branch}), then run the queue again for the rest.`;
	if (step.outcome === "verify-failed") return `Look at the run's work (git diff HEAD...${step.branch}); fix it or drop it (git branch -D ${step.branch}), then run the queue again.`;
	return "Fix what the message says, then run the queue again.";
}

/** The queue's merges, one temporary worktree for all of them; stops at the first step that is not applied. */
async function mergeAll(facts: RepoFacts, start: string, queue: QueuedBranch[], options: MergeQueueOptions): Promise<QueueStep[]> {
	const dir = mkdtempSync(join(options.tempDir ?? tmpdir(), "cadre-queue-"));
	const tree = join(dir, "tree");
	const steps: QueueStep[] = [];
	try {
		const added = await runGit(["worktree", "add", "--detach", "-q", tree, start], { cwd: facts.root });
		if (added.code !== 0) {
			const first = queue[0] as QueuedBranch;
			return [step(first, "failed", `the temporary worktree could not be made: ${firstLine(added.stderr)}. Nothing was applied.`)];
		}
		const env = await commitIdentityEnv(facts.root);
		let head = start;
		for (const item of queue) {
			const done = await mergeOne({ facts, tree, env, head, item, options });
			steps.push(done);
			if (done.outcome !== "applied" && done.outcome !== "already-applied") break;
			head = done.commit ?? head;
		}
		return steps;
	} finally {
		await runGit(["worktree", "remove", "--force", tree], { cwd: facts.root });
		rmSync(dir, { recursive: true, force: true });
		await runGit(["worktree", "prune"], { cwd: facts.root });
	}
}

function step(item: QueuedBranch, kind: QueueStep["outcome"], message: string, extra: Partial<QueueStep> = {}): QueueStep {
	return { id: item.id, branch: item.branch, outcome: kind, message, paths: [], commit: null, fastForward: false, diffStat: null, verify: null, ...extra };
}

interface MergeContext {
	facts: RepoFacts;
	/** The temporary worktree. */
	tree: string;
	env: Record<string, string>;
	/** The parent's HEAD now. */
	head: string;
	item: QueuedBranch;
	options: MergeQueueOptions;
}

/** The commit HEAD would move to for one branch, or why there is none. */
async function mergedCommit(c: MergeContext): Promise<{ commit: string; fastForward: boolean } | QueueStep> {
	const { facts, head, item, env } = c;
	const root = facts.root;
	if ((await runGit(["merge-base", "--is-ancestor", item.commit, head], { cwd: root })).code === 0) {
		return step(item, "already-applied", `${item.branch} is already contained in HEAD.`, { commit: head });
	}
	const message = `Apply ${item.branch} (cadre sub-agent run ${item.id})\n\nMerged by the cadre merge queue.\n`;
	const base = await uncommittedBaseOf(root, item.id, head, item.commit);
	let tree: string;
	let parents: string[];
	if (base) {
		const merged = await mergeWorkOnto(root, head, base, item.commit);
		if (!merged) return step(item, "failed", "applying a branch started from uncommitted changes needs git 2.38 or newer (git merge-tree --write-tree).");
		if (merged.conflicts.length > 0) return conflictStep(item, merged.conflicts);
		tree = merged.tree;
		parents = [head];
	} else {
		if ((await runGit(["merge-base", "--is-ancestor", head, item.commit], { cwd: root })).code === 0) return { commit: item.commit, fastForward: true };
		const merged = await runGit(["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", head, item.commit], { cwd: root });
		const [written = "", ...paths] = splitPaths(merged.stdout);
		if (merged.code === 1) return conflictStep(item, [...new Set(paths)]);
		if (merged.code !== 0) return step(item, "failed", `git merge-tree failed (git 2.38 or newer is needed): ${firstLine(merged.stderr)}.`);
		tree = written;
		parents = [head, item.commit];
	}
	const made = await runGit(["commit-tree", "--no-gpg-sign", tree, ...parents.flatMap((p) => ["-p", p]), "-m", message], { cwd: root, env });
	if (made.code !== 0) return step(item, "failed", `git commit-tree failed: ${firstLine(made.stderr)}.`);
	return { commit: made.stdout.trim(), fastForward: false };
}

function conflictStep(item: QueuedBranch, paths: string[]): QueueStep {
	return step(item, "conflict", `${item.branch} conflicts in ${paths.length} path(s): ${paths.join(", ")}. It was not applied.`, { paths });
}

/** Merges one branch in the temporary worktree, verifies it there, then moves the parent's branch. */
async function mergeOne(c: MergeContext): Promise<QueueStep> {
	const { facts, tree, item, head } = c;
	const merged = await mergedCommit(c);
	if ("outcome" in merged) return merged;
	const checkout = await runGit(["checkout", "--detach", "--force", "-q", merged.commit], { cwd: tree });
	if (checkout.code !== 0) return step(item, "failed", `the merge could not be checked out in the temporary worktree: ${firstLine(checkout.stderr)}.`);
	// what an earlier verify left behind is no part of this merge
	await runGit(["clean", "-ffdxq"], { cwd: tree });
	const chosen = verifyOf(c.options, item.id);
	let verify: VerifyResult | null = null;
	if (chosen) {
		verify = await runVerify(chosen.command, tree, { CADRE_WORKTREE: tree, CADRE_PARENT_ROOT: facts.root, CADRE_RUN_ID: item.id, CADRE_MERGE_QUEUE: "1" });
		if (!verify.ok) {
			const how = verify.exitCode === null ? "did not finish" : `exited with ${verify.exitCode}`;
			return step(item, "verify-failed", `verify \`${verify.command}\` ${how} on the merged tree. It was not applied.`, { verify });
		}
	}
	const changed = await runGit(["diff", "--name-only", "-z", "--no-renames", head, merged.commit], { cwd: facts.root });
	const clobbered = await clobberedIgnored(facts.root, splitPaths(changed.stdout));
	if (clobbered.length > 0) {
		return step(item, "refused", `${item.branch} adds files that exist in your tree as ignored files: ${clobbered.join(", ")}. Applying would overwrite them.`, { paths: clobbered, verify });
	}
	if (readHead(facts).head !== head) return step(item, "refused", "HEAD moved while the queue ran; nothing more was applied.", { verify });
	const moved = await runGit(["merge", "--ff-only", "-q", merged.commit], { cwd: facts.root, env: c.env });
	if (moved.code !== 0) return step(item, "failed", `your branch could not be moved forward: ${firstLine(moved.stderr || moved.stdout)}.`, { verify });
	return step(item, "applied", `Applied ${item.branch}.`, {
		commit: merged.commit,
		fastForward: merged.fastForward,
		diffStat: await diffStat(facts.root, head, merged.commit),
		verify,
	});
}
