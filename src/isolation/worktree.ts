/**
 * Worktree isolation for one run (spec 05): create a git worktree for the child on a branch
 * `cadre/<run-id>` from the parent's HEAD, commit everything the child left behind when the run ends
 * (whatever its terminal state), remove the worktree only when nothing in it needs keeping, and
 * reopen it for a resumed run. Fails closed: every failure is a typed value the run turns into a
 * refusal, unless the operator allowed the shared-directory fallback.
 *
 * Cost per spawn: one `git status` (the parent's dirty state and the escape check's "before"
 * fingerprint) and one `git worktree add`, run concurrently; repository facts are cached per cwd.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, realpathSync, rmdirSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import type { Settings } from "../files/types.ts";
import {
	FINGERPRINT_STATUS_ARGS,
	type Fingerprint,
	fingerprintFromStatus,
	parseStatus,
	type StatusEntry,
} from "./escape-check.ts";
import { GitMissingError, type GitResult, firstLine, readHead, readRef, type RepoFacts, repoFacts, runGit } from "./git.ts";
import type { Owner } from "../runtime/owner.ts";
import { commitUncommitted } from "./uncommitted.ts";
import { lockHolder, ownerLockReason, takeOverLock, worktreeAdminDir } from "./worktree-lock.ts";
import { claimSlot, countInUse, handOut, notReusable, poolSize, refillPool, returnToPool, whilePreparing } from "./worktree-pool.ts";
import {
	readSetupState,
	type SetupReport,
	type SetupState,
	setUpWorktree,
	setupChanges,
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

/**
 * What finishing a worktree needs of its handle (recovery builds one from git's records alone). Without
 * `setup`, the setup state recorded in the worktree's git directory counts; without `pool`, a worktree
 * with nothing left in it is removed.
 */
export type FinishTarget = Omit<WorktreeHandle, "cwd" | "parentDirty" | "before" | "pooled" | "pool" | "setup" | "setupReport" | "copiedUncommitted"> &
	Partial<Pick<WorktreeHandle, "pool" | "setup">>;

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

/** Lines added and removed per file between the run's base and its commit. */
export interface DiffStat {
	files: { path: string; added: number | null; removed: number | null }[];
	added: number;
	removed: number;
	/** `3 files changed, 10 insertions(+), 2 deletions(-)`. */
	summary: string;
}

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

/** The fixed identity cadre commits with when the repository has none configured. */
export const CADRE_IDENTITY = { name: "cadre", email: "cadre@localhost" } as const;

/** Git options every cadre commit uses: no signing, no hooks that could block the commit. */
const COMMIT_CONFIG = ["-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null"];

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

function isInside(parent: string, child: string): boolean {
	const rel = relative(parent, child);
	return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function realOrResolved(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		// a path that does not exist yet: resolve its nearest existing ancestor
		const parent = dirname(path);
		return parent === path ? path : join(realOrResolved(parent), basename(path));
	}
}

/** Where the child's cwd is inside the repository (relative, `sep`-separated), or a failure. */
function relativeCwd(root: string, parentCwd: string, requestCwd: string | null | undefined): string | WorktreeFailure {
	const wanted = realOrResolved(requestCwd ? resolve(parentCwd, requestCwd) : parentCwd);
	if (!isInside(root, wanted)) {
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

function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function dirtyNotice(dirty: string[], base: string): string | null {
	if (dirty.length === 0) return null;
	const shown = dirty.slice(0, 10).join(", ");
	const more = dirty.length > 10 ? ` and ${dirty.length - 10} more` : "";
	return (
		`The parent had ${plural(dirty.length, "uncommitted change")} (${shown}${more}) that the child could not see: ` +
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
	if (isInside(facts.root, realOrResolved(path))) {
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
		countInUse(plan.repoDir, 1);
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
		pool: size > 0 ? { repoDir: plan.repoDir, size } : null,
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
		let added = await runGit(["worktree", "add", "--quiet", "--lock", "--reason", ownerLockReason(), ...target], { cwd: facts.root });
		// git < 2.33 has no `add --reason`: a lock without an owner (in use until finished, as before)
		if (added.code === 129 && /reason/.test(added.stderr)) {
			added = await runGit(["worktree", "add", "--quiet", "--lock", ...target], { cwd: facts.root });
		}
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
	const shown = dirty.slice(0, 10).join(", ");
	const more = dirty.length > 10 ? ` and ${dirty.length - 10} more` : "";
	return (
		`The parent's ${plural(dirty.length, "uncommitted change")} (${shown}${more}) were copied into the worktree: it starts from ` +
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

function removeIfEmpty(dir: string): void {
	try {
		rmdirSync(dir);
	} catch {
		// not empty or already gone
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
