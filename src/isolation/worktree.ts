/**
 * Worktree isolation for one run (spec 05): make a git worktree for the child on a branch
 * `cadre/<run-id>` from the parent's HEAD (handed out by the pool when it has one, ADR 0085; set up
 * by `worktree.include` and `worktree.setup`, ADR 0086; from a base commit of the parent's
 * uncommitted changes with `copy_uncommitted`, ADR 0087), and reopen it for a resumed run. Fails
 * closed: every failure is a typed value the run turns into a refusal, unless the operator allowed
 * the shared-directory fallback. Finishing is `worktree-finish.ts`.
 *
 * Cost per spawn: one `git status` (the parent's dirty state and the escape check's "before"
 * fingerprint) alongside the hand-out or the `git worktree add`; repository facts are cached per cwd.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, rmdirSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import type { Settings } from "../files/types.ts";
import {
	FINGERPRINT_STATUS_ARGS,
	type Fingerprint,
	fingerprintFromStatus,
	listPaths,
	parseStatus,
	type StatusEntry,
} from "./escape-check.ts";
import { GitMissingError, type GitResult, firstLine, readHead, readRef, type RepoFacts, repoFacts, runGit } from "./git.ts";
import { isInside } from "../files/read-confined.ts";
import { realOrNearest } from "./file-tree.ts";
import { commitUncommitted } from "./uncommitted.ts";
import { lockHolder, ownerLockReason, takeOverLock } from "./worktree-lock.ts";
import { oneAtATime } from "./repo-queue.ts";
import { claimSlot, countInUse, handOut, poolSize, refillPool, whilePreparing } from "./worktree-pool.ts";
import {
	readSetupState,
	type SetupReport,
	type SetupState,
	setUpWorktree,
	wantsSetup,
	watchedEntries,
	writeSetupState,
} from "./worktree-setup.ts";

/** Why isolation could not be set up. */
export type WorktreeFailureCode =
	| "git-missing"
	| "not-a-repository"
	| "no-commits"
	| "bad-run-id"
	| "cwd-outside-repository"
	| "base-dir-inside-repository"
	| "creation-failed"
	| "setup-failed";

/** A typed failure the run turns into a refusal (or into the shared fallback when allowed). */
export interface WorktreeFailure {
	code: WorktreeFailureCode;
	/** What went wrong, in one sentence, with git's own words when git failed. */
	message: string;
	/** What the user can do about it. */
	hint: string;
}

/** Everything a run needs to finish (or resume) its worktree. Plain, JSON-serialisable data. */
export interface WorktreeHandle {
	runId: string;
	/** `cadre/<run-id>`. */
	branch: string;
	/** The parent repository's top level (absolute, real path). */
	repoRoot: string;
	/** The repository's common git directory. */
	commonDir: string;
	/** The worktree's top level. */
	worktreePath: string;
	/** The child's cwd: the parent's (or the request's) place in the repository, inside the worktree. */
	cwd: string;
	/** The commit the run started from (the parent's HEAD, or the branch tip when reopened). */
	base: string;
	/** The parent's branch when the worktree was made, or null when detached. */
	parentBranch: string | null;
	/** Whether this handle created `cadre/<run-id>` (an unchanged branch it created is deleted at finish). */
	createdBranch: boolean;
	/** Repository-relative paths the parent had uncommitted (staged, unstaged or untracked) — the child cannot see them. */
	parentDirty: string[];
	/** Plain-words notes for the result (uncommitted parent changes, a created cwd, a reused worktree). */
	notices: string[];
	/** The parent's fingerprint before the run, for the escape check. */
	before: Fingerprint;
	/** Whether the worktree came from the pool (ADR 0085). */
	pooled: boolean;
	/** Where it goes back to when the run finishes with nothing left in it, or null (no pool). */
	pool: { repoDir: string; size: number } | null;
	/** What `worktree.include` and `worktree.setup` left in it, or null (no setup). */
	setup: SetupState | null;
	/** What setting it up did, for the result, or null. */
	setupReport: SetupReport | null;
	/**
	 * The parent's uncommitted changes the worktree started from (`copy_uncommitted`, ADR 0087): the
	 * base commit holding them (`base` is that commit) and the paths; null when none were copied.
	 */
	copiedUncommitted: { commit: string; onto: string; paths: string[] } | null;
}

/** The outcome of preparing isolation for a spawn. */
export type IsolationOutcome =
	| { kind: "worktree"; handle: WorktreeHandle }
	| {
			kind: "shared-fallback";
			/** The directory the child runs in: the parent's (or the request's) cwd, shared with the parent. */
			cwd: string;
			cause: WorktreeFailure;
			/** `isolation: shared-fallback — …` in plain words, for the result. */
			notice: string;
	  }
	| { kind: "refused"; failure: WorktreeFailure };

/** Options of `createWorktree`. */
export interface CreateWorktreeOptions {
	/** The run id; becomes the branch `cadre/<run-id>` and the worktree's directory name. */
	runId: string;
	/** The parent's cwd (absolute). */
	parentCwd: string;
	/** The request's cwd (absolute, or relative to `parentCwd`), or null/undefined for the parent's cwd. */
	requestCwd?: string | null;
	/** pi's agent directory (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`); the default base lives under it. */
	agentDir: string;
	/** Settings `worktree`: `baseDir` (null = default) and `allowSharedFallback`. */
	settings: Settings["worktree"];
	/** Home directory for `~/` in `baseDir` (default: `os.homedir()`). */
	homeDir?: string;
	/** Start from HEAD plus the parent's uncommitted changes (the run's effective `copy_uncommitted`, ADR 0087). */
	copyUncommitted?: boolean;
}

/** Lines added and removed per file between the run's base and its commit. */
export interface DiffStat {
	files: { path: string; added: number | null; removed: number | null }[];
	added: number;
	removed: number;
	/** `3 files changed, 10 insertions(+), 2 deletions(-)`. */
	summary: string;
}

/** The fixed identity cadre commits with when the repository has none configured. */
export const CADRE_IDENTITY = { name: "cadre", email: "cadre@localhost" } as const;

/**
 * Whether `id` may be a run id: a single valid git ref component that is also a plain directory
 * name (letters, digits, `.`, `_`, `-`; no `..`, no leading `.`/`-`, no trailing `.lock`).
 */
export function isValidRunId(id: string): boolean {
	return (
		/^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/.test(id) && !id.includes("..") && !id.endsWith(".lock") && !id.endsWith(".")
	);
}

/** `<repo-name>-<first 8 hex of sha256(root)>`: the per-repository folder under the base directory. */
export function repoFolderName(root: string): string {
	const hash = createHash("sha256").update(root).digest("hex").slice(0, 8);
	const name = basename(root).replace(/[^A-Za-z0-9._-]/g, "_") || "repo";
	return `${name}-${hash}`;
}

/**
 * The directory worktrees of this repository go to: settings `worktree.baseDir` (`~/` expands to the
 * home directory, a relative path resolves against the agent directory) or `<agentDir>/cadre/worktrees`,
 * then `<repo-name>-<hash>`.
 */
export function worktreeRepoDir(root: string, agentDir: string, baseDir: string | null, homeDir = homedir()): string {
	let base = join(agentDir, "cadre", "worktrees");
	if (baseDir) {
		if (baseDir === "~" || baseDir.startsWith("~/")) base = join(homeDir, baseDir.slice(1));
		else base = resolve(agentDir, baseDir);
	}
	return join(base, repoFolderName(root));
}

/** Turns a failure into a `worktree-unavailable` diagnostic (file-less, as spec 02 describes). */
export function failureDiagnostic(failure: WorktreeFailure, severity: "error" | "warning" = "error"): Diagnostic {
	return {
		severity,
		file: null,
		line: null,
		column: null,
		code: "worktree-unavailable",
		message: failure.message,
		hint: failure.hint,
	};
}

function fail(code: WorktreeFailureCode, message: string, hint: string): WorktreeFailure {
	return { code, message, hint };
}


/** Where the child's cwd is inside the repository (relative, `sep`-separated), or a failure. */
function relativeCwd(root: string, parentCwd: string, requestCwd: string | null | undefined): string | WorktreeFailure {
	const wanted = realOrNearest(requestCwd ? resolve(parentCwd, requestCwd) : parentCwd);
	if (!isInside(wanted, root)) {
		return fail(
			"cwd-outside-repository",
			`The child's directory ${wanted} is outside the repository ${root}, so it has no place in a worktree.`,
			"Use a cwd inside the repository, or run the child without worktree isolation.",
		);
	}
	return relative(root, wanted);
}

function refuseOrFallback(failure: WorktreeFailure, options: CreateWorktreeOptions): IsolationOutcome {
	if (!options.settings.allowSharedFallback) return { kind: "refused", failure };
	const cwd = options.requestCwd ? resolve(options.parentCwd, options.requestCwd) : options.parentCwd;
	return {
		kind: "shared-fallback",
		cwd,
		cause: failure,
		notice:
			`isolation: shared-fallback — worktree isolation was requested but could not be set up (${failure.message}), ` +
			`so the child ran in the shared directory ${cwd}, where its edits land directly in the parent's files ` +
			"(settings worktree.allowSharedFallback is true).",
	};
}

/** Classifies a `git worktree add` failure. */
function creationFailure(result: GitResult, path: string): WorktreeFailure {
	const why = firstLine(result.stderr) || `git exited with ${result.code}`;
	return fail(
		"creation-failed",
		`git could not create the worktree ${path}: ${why}`,
		/already exists/.test(result.stderr)
			? "A worktree or branch for this run id already exists; run `cadre worktrees list` and `cadre worktrees clean`."
			: "Check that the base directory (settings worktree.baseDir) is writable and that git works in this repository.",
	);
}

/** Status entries that are uncommitted work (everything except ignored files). */
function dirtyPaths(entries: StatusEntry[]): string[] {
	return entries.filter((e) => e.kind !== "!").map((e) => e.path);
}

/** `3 files`, `1 file`. */
export function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function dirtyNotice(dirty: string[], base: string): string | null {
	if (dirty.length === 0) return null;
	return (
		`The parent had ${plural(dirty.length, "uncommitted change")} (${listPaths(dirty, 10)}) that the child could not see: ` +
		`its worktree started from the last commit ${base.slice(0, 12)}.`
	);
}

/**
 * Creates the worktree for a run: branch `cadre/<run-id>` at the parent's current HEAD, in
 * `<baseDir>/<repo>-<hash>/<run-id>`. Never throws; every failure is a typed outcome.
 */
export async function createWorktree(options: CreateWorktreeOptions): Promise<IsolationOutcome> {
	if (!isValidRunId(options.runId)) {
		return refuseOrFallback(
			fail(
				"bad-run-id",
				`The run id "${options.runId}" cannot name a git branch and directory.`,
				"Use letters, digits, '.', '_' and '-' only.",
			),
			options,
		);
	}
	const repo = await repoFacts(options.parentCwd);
	if (!repo.ok) {
		const hint =
			repo.code === "git-missing"
				? "Install git (or put it on PATH), or run the child without worktree isolation."
				: "Run `git init` and commit once, start pi inside a git repository, or run the child without worktree isolation.";
		return refuseOrFallback(fail(repo.code, repo.message, hint), options);
	}
	const facts = repo.facts;
	const rel = relativeCwd(facts.root, options.parentCwd, options.requestCwd);
	if (typeof rel !== "string") return refuseOrFallback(rel, options);
	const { head, branch } = readHead(facts);
	if (!head) {
		return refuseOrFallback(
			fail(
				"no-commits",
				`The repository ${facts.root} has no commit yet, so there is nothing to start a worktree from.`,
				"Commit once (git commit --allow-empty -m init), then retry.",
			),
			options,
		);
	}
	const repoDir = worktreeRepoDir(facts.root, options.agentDir, options.settings.baseDir, options.homeDir);
	const path = join(repoDir, options.runId);
	if (isInside(realOrNearest(path), facts.root)) {
		return refuseOrFallback(
			fail(
				"base-dir-inside-repository",
				`The worktree directory ${path} would be inside the parent's working tree ${facts.root}.`,
				"Set settings worktree.baseDir to a directory outside the repository, or remove it to use the default.",
			),
			options,
		);
	}
	return addWorktree(facts, options, { path, rel, head, parentBranch: branch, newBranch: true, startPoint: head, repoDir });
}

interface AddPlan {
	path: string;
	rel: string;
	/** The parent's HEAD (for the dirty notice). */
	head: string;
	parentBranch: string | null;
	/** `-b cadre/<id>` at `startPoint` when true; check out the existing branch when false. */
	newBranch: boolean;
	startPoint: string;
	/** The repository's worktree folder (`<baseDir>/<repo>-<hash>`), where the pool lives. */
	repoDir: string;
}

/** A worktree made for a run (new, or handed out by the pool), not yet set up. */
type Made =
	| { ok: true; pooled: boolean; start: string; copied: { commit: string; onto: string } | null }
	| { ok: false; failure: WorktreeFailure; fallback: boolean };

/**
 * Makes the run's worktree, sets it up and builds its handle. The parent's `git status` (its
 * uncommitted changes and the escape check's "before") runs alongside making the worktree.
 */
async function addWorktree(facts: RepoFacts, options: CreateWorktreeOptions, plan: AddPlan): Promise<IsolationOutcome> {
	const size = poolSize(options.settings);
	const outcome = await whilePreparing(async () => {
		const [made, status] = await Promise.all([makeWorktree(facts, options, plan, size), runGit(FINGERPRINT_STATUS_ARGS, { cwd: facts.root })]);
		if (!made.ok) return made.fallback ? refuseOrFallback(made.failure, options) : ({ kind: "refused", failure: made.failure } as const);
		let setup: SetupState | null = null;
		let setupReport: SetupReport | null = null;
		if (wantsSetup(options.settings)) {
			const previous = made.pooled ? readSetupState(plan.path) : null;
			const set = await setUpWorktree({ parentRoot: facts.root, worktreePath: plan.path, runId: options.runId, settings: options.settings, previous });
			if (!set.ok) {
				await discardWorktree(facts.root, plan, `cadre/${options.runId}`);
				const output = set.output ? `\n${set.output}` : "";
				return { kind: "refused", failure: fail("setup-failed", `${set.message}${output}`, "Fix worktree.setup or worktree.include in your settings, then retry.") } as const;
			}
			setup = set.state;
			setupReport = set.report;
		} else if (made.pooled) {
			// settings no longer ask for setup: what a pooled worktree recorded of an earlier one is gone with the clean
			writeSetupState(plan.path, null);
		}
		return { kind: "worktree", handle: handleOf(facts, options, plan, made, status, setup, setupReport, size) } as const;
	});
	if (outcome.kind === "worktree" && size > 0) {
		refillPool({ facts, repoDir: plan.repoDir, size, head: plan.head, include: (options.settings.include ?? []).filter((i) => i.mode === "copy") });
	}
	return outcome;
}

function handleOf(
	facts: RepoFacts,
	options: CreateWorktreeOptions,
	plan: AddPlan,
	made: Extract<Made, { ok: true }>,
	status: GitResult,
	setup: SetupState | null,
	setupReport: SetupReport | null,
	size: number,
): WorktreeHandle {
	const branchName = `cadre/${options.runId}`;
	const parsed = parseStatus(status.code === 0 ? status.stdout : "");
	const before = fingerprintFromStatus(facts.root, { ...parsed, head: parsed.head ?? plan.head });
	if (setup) Object.assign(before.entries, watchedEntries(facts.root, setup));
	const base = plan.newBranch ? made.start : (readRef(facts, `refs/heads/${branchName}`) ?? plan.startPoint);
	const notices: string[] = [];
	const dirty = dirtyPaths(parsed.entries);
	const dirtyText = made.copied ? copiedNotice(dirty, made.copied) : dirtyNotice(dirty, plan.head);
	if (dirtyText) notices.push(dirtyText);
	if (!plan.newBranch) notices.push(`Resumed in the worktree rebuilt from ${branchName} at ${base.slice(0, 12)}.`);
	if (setupReport) notices.push(setupNotice(setupReport));
	const cwd = join(plan.path, plan.rel);
	if (!existsSync(cwd)) {
		mkdirSync(cwd, { recursive: true });
		notices.push(`The directory ${plan.rel} is not in the last commit; it was created empty in the worktree.`);
	}
	return {
		runId: options.runId,
		branch: branchName,
		repoRoot: facts.root,
		commonDir: facts.commonDir,
		worktreePath: plan.path,
		cwd,
		base,
		parentBranch: plan.parentBranch,
		createdBranch: plan.newBranch,
		parentDirty: dirty,
		notices,
		before,
		pooled: made.pooled,
		pool: usePool(plan.repoDir, size),
		setup,
		setupReport,
		copiedUncommitted: made.copied ? { ...made.copied, paths: dirty } : null,
	};
}

/**
 * The run's worktree at `plan.path`, locked as this process: handed out by the pool when it has an
 * idle one, else made with `git worktree add`. With `copyUncommitted`, it starts from a base commit
 * holding the parent's uncommitted changes.
 */
async function makeWorktree(facts: RepoFacts, options: CreateWorktreeOptions, plan: AddPlan, size: number): Promise<Made> {
	const branchName = `cadre/${options.runId}`;
	let start = plan.startPoint;
	let copied: { commit: string; onto: string } | null = null;
	try {
		if (options.copyUncommitted && plan.newBranch) {
			const env = await commitIdentityEnv(facts.root);
			start = await commitUncommitted({ root: facts.root, gitDir: facts.gitDir, head: plan.head, runId: options.runId, env });
			if (start !== plan.head) copied = { commit: start, onto: plan.head };
		}
		mkdirSync(dirname(plan.path), { recursive: true });
	} catch (error) {
		if (error instanceof GitMissingError) return { ok: false, failure: fail("git-missing", error.message, "Install git (or put it on PATH)."), fallback: true };
		const why = `Could not prepare ${plan.path}: ${(error as Error).message}`;
		return { ok: false, failure: fail("creation-failed", why, "Check settings worktree.baseDir, and that git works in this repository."), fallback: true };
	}
	const slot = size > 0 ? claimSlot(plan.repoDir) : null;
	if (slot) {
		const keep = (options.settings.include ?? []).map((i) => i.path);
		const handed = await handOut(slot, { root: facts.root, path: plan.path, branch: branchName, newBranch: plan.newBranch, startPoint: start, keep });
		if (handed.ok) return { ok: true, pooled: true, start, copied };
		// the pooled worktree is gone (removed by handOut): make a new one
	}
	const added = await gitWorktreeAdd(facts, plan, branchName, start);
	if ("failure" in added) return { ok: false, failure: added.failure, fallback: true };
	return { ok: true, pooled: false, start, copied };
}

/** `git worktree add --lock`, locked in this process's name (ADR 0065). */
async function gitWorktreeAdd(facts: RepoFacts, plan: AddPlan, branchName: string, start: string): Promise<{ ok: true } | { failure: WorktreeFailure }> {
	// Locked while the run lasts, so `cadre worktrees clean` (or git's prune) never removes it from
	// under a running child; `finishWorktree` unlocks it. The reason names this process, so a lock
	// its crashed owner left behind is told from a live one (ADR 0065).
	const target = plan.newBranch ? ["-b", branchName, plan.path, start] : [plan.path, branchName];
	try {
		const add = async () => {
			const first = await runGit(["worktree", "add", "--quiet", "--lock", "--reason", ownerLockReason(), ...target], { cwd: facts.root });
			// git < 2.33 has no `add --reason`: a lock without an owner (in use until finished, as before)
			return first.code === 129 && /reason/.test(first.stderr) ? runGit(["worktree", "add", "--quiet", "--lock", ...target], { cwd: facts.root }) : first;
		};
		const added = await oneAtATime(facts.root, add);
		return added.code === 0 ? { ok: true } : { failure: creationFailure(added, plan.path) };
	} catch (error) {
		return { failure: fail("git-missing", (error as Error).message, "Install git (or put it on PATH).") };
	}
}

/** The pool a reused worktree goes back to, counted as in use until it finishes; null without a pool. */
function usePool(repoDir: string, size: number): WorktreeHandle["pool"] {
	if (size <= 0) return null;
	countInUse(repoDir, 1);
	return { repoDir, size };
}

/** Removes a worktree whose setup failed, and the branch made for it: the spawn leaves nothing behind. */
async function discardWorktree(root: string, plan: AddPlan, branchName: string): Promise<void> {
	await runGit(["worktree", "remove", "--force", "--force", plan.path], { cwd: root });
	if (plan.newBranch) await runGit(["branch", "-D", branchName], { cwd: root });
	removeIfEmpty(dirname(plan.path));
}

function copiedNotice(dirty: string[], copied: { commit: string; onto: string }): string {
	return (
		`The parent's ${plural(dirty.length, "uncommitted change")} (${listPaths(dirty, 10)}) were copied into the worktree: it starts from ` +
		`${copied.commit.slice(0, 12)}, a commit of them on top of ${copied.onto.slice(0, 12)}; the branch's work starts there, and ` +
		"applying it never applies them again."
	);
}

function setupNotice(report: SetupReport): string {
	const parts = report.include.map((i) => {
		if (i.skipped) return `${i.path} skipped (${i.skipped})`;
		if (!i.present) return `${i.path} not in the parent, nothing to bring`;
		if (i.method === "symlink") return `${i.path} symlinked to the parent's copy — a write there changes the parent's files`;
		const how = i.method === null ? "up to date" : i.method === "reflink" ? "copied copy-on-write" : "copied";
		return `${i.path} ${how} (${i.copied} copied, ${i.unchanged} unchanged${i.removed ? `, ${i.removed} removed` : ""})`;
	});
	if (report.command) parts.push(`\`${report.command.command}\` ran (${Math.round(report.command.ms)} ms)`);
	return `Worktree setup: ${parts.join("; ")}.`;
}

/**
 * Locks a kept worktree again for the resumed run, as this process: an unlocked one is locked, an
 * interrupted one (its earlier owner crashed) is taken over so no recovery commits it from under the
 * resumed child; a lock held by a live owner, or one that names no cadre owner, is left as it is.
 */
async function lockForResume(record: WorktreeRecord, root: string): Promise<void> {
	const holder = lockHolder(record);
	if (holder.state === "interrupted") await takeOverLock(record.path, root);
	else if (holder.state === "unlocked") await runGit(["worktree", "lock", "--reason", ownerLockReason(), record.path], { cwd: root });
}

/** Options of `reopenWorktree`: those of `createWorktree`, plus what the earlier run recorded. */
export interface ReopenWorktreeOptions extends CreateWorktreeOptions {
	/** The earlier run's handle or finish report, when stored (its `worktreePath` is reused). */
	previous?: { worktreePath: string } | null;
}

/**
 * Reopens the worktree of an isolated run being resumed: reuses the worktree when it still exists,
 * rebuilds it from `cadre/<run-id>` when only the branch is left, and creates a fresh one from the
 * parent's HEAD when neither is (the earlier run changed nothing).
 */
export async function reopenWorktree(options: ReopenWorktreeOptions): Promise<IsolationOutcome> {
	if (!isValidRunId(options.runId)) return createWorktree(options);
	const repo = await repoFacts(options.parentCwd);
	if (!repo.ok) return createWorktree(options);
	const facts = repo.facts;
	const branchName = `cadre/${options.runId}`;
	const tip = readRef(facts, `refs/heads/${branchName}`);
	if (!tip) return createWorktree(options);
	const rel = relativeCwd(facts.root, options.parentCwd, options.requestCwd);
	if (typeof rel !== "string") return refuseOrFallback(rel, options);
	const { head, branch } = readHead(facts);
	const repoDir = worktreeRepoDir(facts.root, options.agentDir, options.settings.baseDir, options.homeDir);
	const list = await worktreeRecords(facts.root);
	const record = list.find((w) => w.branch === `refs/heads/${branchName}`);
	if (record && existsSync(join(record.path, ".git"))) {
		const [status] = await Promise.all([runGit(FINGERPRINT_STATUS_ARGS, { cwd: facts.root }), lockForResume(record, facts.root)]);
		const parsed = parseStatus(status.code === 0 ? status.stdout : "");
		const dirty = dirtyPaths(parsed.entries);
		const notices = [`Resumed in the existing worktree ${record.path}.`];
		const dirtyText = head ? dirtyNotice(dirty, head) : null;
		if (dirtyText) notices.push(dirtyText);
		const cwd = join(record.path, rel);
		if (!existsSync(cwd)) mkdirSync(cwd, { recursive: true });
		return {
			kind: "worktree",
			handle: {
				runId: options.runId,
				branch: branchName,
				repoRoot: facts.root,
				commonDir: facts.commonDir,
				worktreePath: record.path,
				cwd,
				base: record.head ?? tip,
				parentBranch: branch,
				createdBranch: false,
				parentDirty: dirty,
				notices,
				before: fingerprintFromStatus(facts.root, parsed),
				pooled: false,
				pool: usePool(repoDir, poolSize(options.settings)),
				setup: readSetupState(record.path),
				setupReport: null,
				copiedUncommitted: null,
			},
		};
	}
	if (record) {
		// a locked record whose directory is gone is never pruned: unlock it first
		await runGit(["worktree", "unlock", record.path], { cwd: facts.root });
		await runGit(["worktree", "prune"], { cwd: facts.root });
	}
	const path = options.previous?.worktreePath ?? join(repoDir, options.runId);
	return addWorktree(facts, options, {
		path,
		rel,
		head: head ?? tip,
		parentBranch: branch,
		newBranch: false,
		startPoint: tip,
		repoDir,
	});
}

/** One record of `git worktree list --porcelain`. */
export interface WorktreeRecord {
	path: string;
	/** The commit checked out, or null. */
	head: string | null;
	/** The full ref checked out (`refs/heads/cadre/x`), or null when detached. */
	branch: string | null;
	/** Whether git considers it prunable (its directory is gone). */
	prunable: boolean;
	locked: boolean;
	/** The lock's reason (cadre's owner line, `added with --lock`, a user's text), or null. */
	lockReason: string | null;
}

/** The repository's worktrees as git records them (one subprocess). */
export async function worktreeRecords(root: string): Promise<WorktreeRecord[]> {
	const result = await runGit(["worktree", "list", "--porcelain", "-z"], { cwd: root });
	if (result.code !== 0) return [];
	const records: WorktreeRecord[] = [];
	let current: WorktreeRecord | null = null;
	for (const field of result.stdout.split("\0")) {
		if (field === "") {
			if (current) records.push(current);
			current = null;
			continue;
		}
		const space = field.indexOf(" ");
		const key = space < 0 ? field : field.slice(0, space);
		const value = space < 0 ? "" : field.slice(space + 1);
		if (key === "worktree") current = { path: value, head: null, branch: null, prunable: false, locked: false, lockReason: null };
		else if (!current) continue;
		else if (key === "HEAD") current.head = value;
		else if (key === "branch") current.branch = value;
		else if (key === "prunable") current.prunable = true;
		else if (key === "locked") {
			current.locked = true;
			current.lockReason = value || null;
		}
	}
	if (current) records.push(current);
	return records;
}

/**
 * The commit each `cadre/<id>` branch was created from, by run id: the oldest entry of the branch's
 * reflog, when that entry is the creation (one subprocess for every branch). A branch whose reflog
 * is missing or expired has no known base.
 */
export async function branchBases(root: string): Promise<Map<string, string>> {
	const bases = new Map<string, string>();
	const result = await runGit(["log", "--walk-reflogs", "--format=%gD%x00%H%x00%gs", "--glob=refs/heads/cadre/*", "--"], { cwd: root });
	const oldest = new Map<string, [string, string]>();
	for (const line of result.code === 0 ? result.stdout.split("\n") : []) {
		const [selector = "", commit = "", subject = ""] = line.split("\0");
		const match = /^refs\/heads\/cadre\/(.+)@\{\d+\}$/.exec(selector);
		// each branch's entries come newest first, so the last one seen is the oldest
		if (match) oldest.set(match[1] as string, [commit, subject]);
	}
	for (const [id, [commit, subject]] of oldest) if (subject.startsWith("branch: Created from")) bases.set(id, commit);
	return bases;
}

/**
 * Environment that makes git commit as the repository's configured user when there is one (config
 * or `GIT_AUTHOR_*`/`GIT_COMMITTER_*`), else as `cadre <cadre@localhost>`. Two `git var` calls.
 */
export async function commitIdentityEnv(cwd: string): Promise<Record<string, string>> {
	const strict = ["-c", "user.useConfigOnly=true", "var"];
	const [author, committer] = await Promise.all([
		runGit([...strict, "GIT_AUTHOR_IDENT"], { cwd }),
		runGit([...strict, "GIT_COMMITTER_IDENT"], { cwd }),
	]);
	const env: Record<string, string> = {};
	if (author.code !== 0) {
		env.GIT_AUTHOR_NAME = CADRE_IDENTITY.name;
		env.GIT_AUTHOR_EMAIL = CADRE_IDENTITY.email;
	}
	if (committer.code !== 0) {
		env.GIT_COMMITTER_NAME = CADRE_IDENTITY.name;
		env.GIT_COMMITTER_EMAIL = CADRE_IDENTITY.email;
	}
	return env;
}

/** `git diff --numstat` between two commits, summed (one subprocess). */
export async function diffStat(cwd: string, from: string, to: string): Promise<DiffStat> {
	const result = await runGit(["diff", "--numstat", "-z", "--no-renames", from, to], { cwd });
	const files: DiffStat["files"] = [];
	for (const record of result.stdout.split("\0")) {
		const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(record.replace(/^\n/, ""));
		if (!match) continue;
		files.push({
			path: match[3] as string,
			added: match[1] === "-" ? null : Number(match[1]),
			removed: match[2] === "-" ? null : Number(match[2]),
		});
	}
	const added = files.reduce((sum, f) => sum + (f.added ?? 0), 0);
	const removed = files.reduce((sum, f) => sum + (f.removed ?? 0), 0);
	return {
		files,
		added,
		removed,
		summary: `${plural(files.length, "file")} changed, ${plural(added, "insertion")}(+), ${plural(removed, "deletion")}(-)`,
	};
}

/** Removes a directory when it is empty (a repository's worktree folder after its last worktree). */
export function removeIfEmpty(dir: string): void {
	try {
		rmdirSync(dir);
	} catch {
		// not empty or already gone
	}
}
