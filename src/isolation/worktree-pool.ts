/**
 * The worktree pool (ADR 0085): prepared worktrees of a repository, kept in
 * `<baseDir>/<repo>-<hash>/.pool/`, so an isolated spawn costs what differs between a pooled
 * worktree and the parent's HEAD instead of a full checkout.
 *
 * A pooled worktree sits idle on a detached HEAD, unlocked, clean: nothing in it but the commit's
 * tree and what `worktree.include` copied. Handing one out takes it atomically (its git lock file,
 * created exclusively, names this process as the owner: the same lock a new worktree gets), removes
 * every untracked and ignored file but the included paths (`git clean -ffdx -e`), checks out the
 * parent's HEAD on a new `cadre/<id>` (`git checkout -f -b`: a two-way checkout that writes only what
 * differs), and moves it to where a new worktree of the run would be. From there on it is a run's
 * worktree like any other. A run's worktree goes back to the pool (instead of being removed) only when
 * finishing found nothing left in it — its work committed, nothing ignored but the setup's untouched
 * files, no operation in progress, no index flags that hide changes — and the pool has room.
 *
 * Refills (`git worktree add --detach` plus the includes) run in the background, at a lower CPU
 * priority, one at a time, and only while no spawn of this process is preparing its worktree.
 */
import { oneAtATime } from "./repo-queue.ts";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import type { WorktreeSettings } from "../files/types.ts";
import { parseStatus } from "./escape-check.ts";
import { firstLine, type GitResult, type RepoFacts, readGitFile, runGit } from "./git.ts";
import { lockHolder, ownerLockReason, takeOverLock, worktreeAdminDir } from "./worktree-lock.ts";
import { type SetupState, writeSetupState } from "./worktree-setup.ts";
import { liveUsers, usersReason } from "./worktree-users.ts";
import { copyIncludeInBackground, type IncludeRecord } from "./worktree-include.ts";

/** The pool's folder inside a repository's worktree folder (not a valid run id, so never a run's worktree). */
export const POOL_FOLDER = ".pool";

/** Idle worktrees kept per repository when settings say nothing (ADR 0085). */
export const DEFAULT_POOL_SIZE = 2;

/** The pool size settings ask for. */
export function poolSize(settings: Pick<WorktreeSettings, "pool">): number {
	return settings.pool?.size ?? DEFAULT_POOL_SIZE;
}

/** Whether `path` is a pooled worktree's place (`…/<repo>-<hash>/.pool/<name>`). */
export function isPoolPath(path: string): boolean {
	return basename(dirname(path)) === POOL_FOLDER;
}

function poolDir(repoDir: string): string {
	return join(repoDir, POOL_FOLDER);
}

/** The pooled worktrees present on disk (idle or being handled). */
function slotPaths(repoDir: string): string[] {
	try {
		return readdirSync(poolDir(repoDir))
			.filter((name) => name.startsWith("p-"))
			.map((name) => join(poolDir(repoDir), name));
	} catch {
		return [];
	}
}

/**
 * Locks a pooled worktree as this process, atomically (git's lock file, created exclusively; its
 * content is the reason, gitrepository-layout(5)). False when another process holds it.
 */
function lockSlot(path: string): boolean {
	const admin = worktreeAdminDir(path);
	if (!admin || !existsSync(admin)) return false;
	try {
		writeFileSync(join(admin, "locked"), `${ownerLockReason()}\n`, { flag: "wx" });
		return true;
	} catch {
		return false;
	}
}

function unlockSlot(path: string): void {
	const admin = worktreeAdminDir(path);
	if (!admin) return;
	try {
		unlinkSync(join(admin, "locked"));
	} catch {
		// not locked
	}
}

/** Takes an idle pooled worktree for this process (locked in its name), or null when none is idle. */
export function claimSlot(repoDir: string): string | null {
	for (const path of slotPaths(repoDir)) {
		if (lockSlot(path)) {
			// it may have been handed out and moved away between the listing and the lock
			if (existsSync(join(path, ".git"))) return path;
			unlockSlot(path);
		}
	}
	return null;
}

/** What a hand-out makes of a claimed worktree. */
export interface HandOutPlan {
	/** The parent repository's top level (git's commands about worktrees run there). */
	root: string;
	/** Where the run's worktree goes. */
	path: string;
	branch: string;
	/** `-b branch` at `startPoint` when true; check out the existing branch when false. */
	newBranch: boolean;
	startPoint: string;
	/** Repository-relative paths kept through the clean (the included paths). */
	keep: string[];
}

/**
 * Makes a claimed pooled worktree the run's: exactly `startPoint`'s tree on `branch` (untracked and
 * ignored files removed, but the included paths), moved to `plan.path`. Still locked as this process.
 * On failure the pooled worktree is removed and git's message returned; the caller makes a new one.
 */
export async function handOut(slot: string, plan: HandOutPlan): Promise<{ ok: true } | { ok: false; message: string }> {
	const exclude = plan.keep.flatMap((path) => ["-e", `/${path}`]);
	const clean = await runGit(["clean", "-ffdxq", ...exclude], { cwd: slot });
	const checkout = clean.code === 0 ? await runGit(checkoutArgs(plan), { cwd: slot }) : clean;
	if (checkout.code !== 0) return dropSlot(slot, plan.root, checkout);
	try {
		moveWorktree(slot, plan.path);
	} catch (error) {
		const at = existsSync(join(plan.path, ".git")) ? plan.path : slot;
		return dropSlot(at, plan.root, { code: 1, stdout: "", stderr: (error as Error).message });
	}
	return { ok: true };
}

/**
 * Moves a worktree this process holds: renames its directory and points git's record at the new
 * place (`<admin>/gitdir`, and the worktree's `.git` file when it holds a relative path), keeping
 * the style git wrote them in (gitrepository-layout(5)) — what `git worktree move` does, for a
 * locked worktree. Not `git worktree repair`: it rewrites every worktree's `.git` file it finds
 * broken, so it races with a removal going on elsewhere in the repository.
 */
function moveWorktree(from: string, to: string): void {
	const admin = worktreeAdminDir(from);
	if (!admin) throw new Error(`${from} is not a linked worktree`);
	mkdirSync(dirname(to), { recursive: true });
	renameSync(from, to);
	const pointer = (readGitFile(join(to, ".git")) ?? "").trim().slice("gitdir: ".length);
	if (!isAbsolute(pointer)) writeFileSync(join(to, ".git"), `gitdir: ${relative(to, admin)}\n`);
	const back = readGitFile(join(admin, "gitdir"))?.trim();
	if (back === undefined) throw new Error(`${admin}/gitdir cannot be read as a small regular file`);
	writeFileSync(join(admin, "gitdir"), `${isAbsolute(back) ? join(to, ".git") : relative(admin, join(to, ".git"))}\n`);
}

function checkoutArgs(plan: HandOutPlan): string[] {
	return plan.newBranch
		? ["checkout", "--quiet", "--force", "-b", plan.branch, plan.startPoint]
		: ["checkout", "--quiet", "--force", plan.branch];
}

async function dropSlot(path: string, root: string, failed: GitResult): Promise<{ ok: false; message: string }> {
	await removeWorktree(path, root);
	return { ok: false, message: firstLine(failed.stderr) || `git exited with ${failed.code}` };
}

/** Removes a pooled worktree this process holds (it holds nothing of a run: see the module comment). */
async function removeWorktree(path: string, root: string): Promise<boolean> {
	const removed = await runGit(["worktree", "remove", "--force", "--force", path], { cwd: root });
	if (removed.code !== 0 && !existsSync(join(path, ".git"))) {
		// not a worktree any more (a failed move): the directory and git's record go separately
		rmSync(path, { recursive: true, force: true });
		await runGit(["worktree", "prune"], { cwd: root });
		return true;
	}
	return removed.code === 0;
}

/** Git operations whose state lives in a worktree's administrative directory and must not be handed on. */
const ADMIN_MARKERS = ["MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_LOG", "rebase-merge", "rebase-apply", "config.worktree", "info/sparse-checkout"];

/**
 * Why a finished run's worktree cannot serve another run even though nothing in it needs keeping,
 * or null: an operation in progress, per-worktree configuration, or index entries flagged
 * assume-unchanged or skip-worktree (they hide changes from `git status`).
 */
export async function notReusable(worktreePath: string): Promise<string | null> {
	const admin = worktreeAdminDir(worktreePath);
	if (!admin) return "it has no git administrative directory";
	const marker = ADMIN_MARKERS.find((name) => existsSync(join(admin, name)));
	if (marker) return `it has ${marker}`;
	const flags = await runGit(["ls-files", "-v", "-z"], { cwd: worktreePath });
	if (flags.code !== 0) return "git ls-files failed";
	if (flags.stdout.split("\0").some((line) => /^[a-zS]/.test(line))) return "its index has assume-unchanged or skip-worktree entries";
	return null;
}

/** Options of `returnToPool`. */
export interface ReturnOptions {
	root: string;
	repoDir: string;
	/** The pool size settings ask for. */
	size: number;
	/** The worktree's setup state (its include records stay; the setup command's outputs go). */
	setup: SetupState | null;
}

/**
 * Puts a finished run's worktree (locked by this process, its work committed, nothing left that
 * needs keeping) back into the pool: detached at its commit, cleaned but for the included paths,
 * moved into the pool folder, unlocked. `full` — nothing changed — when the pool has no room (the
 * caller removes it); `removed` when git failed half-way (then it is removed here: it held nothing).
 */
export async function returnToPool(worktreePath: string, options: ReturnOptions): Promise<"pooled" | "full" | "removed"> {
	const returning = coming.get(options.repoDir) ?? 0;
	if (options.size <= 0 || slotPaths(options.repoDir).length + returning >= options.size) return "full";
	// taken before the first await, so siblings finishing at the same moment do not overfill the pool
	coming.set(options.repoDir, returning + 1);
	try {
		return await putBack(worktreePath, options);
	} finally {
		coming.set(options.repoDir, (coming.get(options.repoDir) ?? 1) - 1);
	}
}

/** Worktrees on their way back into each pool (this process). */
const coming = new Map<string, number>();

async function putBack(worktreePath: string, options: ReturnOptions): Promise<"pooled" | "removed"> {
	const keep = (options.setup?.include ?? []).map((r) => r.path);
	const slot = join(poolDir(options.repoDir), `p-${randomBytes(4).toString("hex")}`);
	let at = worktreePath;
	try {
		const detach = await runGit(["checkout", "--quiet", "--detach"], { cwd: at });
		if (detach.code !== 0) throw new Error(firstLine(detach.stderr));
		const clean = await runGit(["clean", "-ffdxq", ...keep.flatMap((path) => ["-e", `/${path}`])], { cwd: at });
		if (clean.code !== 0) throw new Error(firstLine(clean.stderr));
		moveWorktree(at, slot);
		at = slot;
		if (options.setup) writeSetupState(slot, { include: options.setup.include, outputs: {}, outputRoots: [] });
		unlockSlot(slot);
		return "pooled";
	} catch {
		await removeWorktree(at, options.root);
		return "removed";
	}
}

/** Options of a refill. */
export interface FillOptions {
	facts: RepoFacts;
	repoDir: string;
	size: number;
	/** The commit new pooled worktrees start at (the parent's HEAD). */
	head: string;
	/** `worktree.include`: copied into each new pooled worktree, so a hand-out only syncs them. */
	include: NonNullable<WorktreeSettings["include"]>;
}

let preparing = 0;
const waiters: (() => void)[] = [];
const refills = new Map<string, Promise<void>>();
/** Runs of this process, per pool, whose worktrees may come back to it when they finish. */
const inUse = new Map<string, number>();

/** Counts a run's worktree that may come back to the pool of `repoDir` (+1), or that is done (-1). */
export function countInUse(repoDir: string, delta: 1 | -1): void {
	const count = Math.max(0, (inUse.get(repoDir) ?? 0) + delta);
	if (count === 0) inUse.delete(repoDir);
	else inUse.set(repoDir, count);
}

/**
 * Whether the pool has what it needs: idle worktrees plus the runs whose worktrees will most likely
 * come back when they finish. So a parent that runs one isolated child after another recycles the
 * same worktrees (no checkout, no removal), and only a fan-out wider than the pool makes new ones.
 */
function poolFull(repoDir: string, size: number): boolean {
	return slotPaths(repoDir).length + (inUse.get(repoDir) ?? 0) >= size;
}

/** Marks a spawn preparing its worktree: refills wait until none is. */
export async function whilePreparing<T>(work: () => Promise<T>): Promise<T> {
	preparing++;
	try {
		return await work();
	} finally {
		preparing--;
		if (preparing === 0) for (const wake of waiters.splice(0)) wake();
	}
}

function noSpawnPreparing(): Promise<void> {
	return preparing === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve));
}

/** Tops the pool of `repoDir` up to its size in the background (one refill per pool at a time; see `poolFull`). */
export function refillPool(options: FillOptions): void {
	if (options.size <= 0 || refills.has(options.repoDir)) return;
	const run = (async () => {
		try {
			for (let made = 0; made < options.size; made++) {
				await noSpawnPreparing();
				if (poolFull(options.repoDir, options.size)) break;
				if (!(await fillSlot(options))) break;
			}
		} catch {
			// a refill is an optimisation: the next spawn makes a new worktree instead
		} finally {
			refills.delete(options.repoDir);
		}
	})();
	refills.set(options.repoDir, run);
}

/** Resolves when no refill is running (tests, benches). */
export async function poolSettled(): Promise<void> {
	while (refills.size > 0) await Promise.all([...refills.values()]);
}

/** Adds one pooled worktree: checked out at `head`, includes copied, index settled, unlocked. */
async function fillSlot(options: FillOptions): Promise<boolean> {
	const slot = join(poolDir(options.repoDir), `p-${randomBytes(4).toString("hex")}`);
	mkdirSync(dirname(slot), { recursive: true });
	const root = options.facts.root;
	const added = await oneAtATime(root, () =>
		runGit(["worktree", "add", "--quiet", "--detach", "--lock", "--reason", ownerLockReason(), slot, options.head], {
			cwd: root,
			background: true,
		}),
	);
	if (added.code !== 0) return false;
	try {
		const include: IncludeRecord[] = [];
		for (const entry of options.include) {
			const record = await copyIncludeInBackground(root, slot, entry);
			if (record) include.push(record);
		}
		if (include.length > 0) writeSetupState(slot, { include, outputs: {}, outputRoots: [] });
		// a fresh index's entries are all "racily clean" (as new as the index itself): refreshing it now,
		// off the spawn's path, spares the hand-out's checkout from hashing every file again
		await runGit(["update-index", "-q", "--refresh"], { cwd: slot, background: true });
	} catch {
		await removeWorktree(slot, root);
		return false;
	}
	unlockSlot(slot);
	return true;
}

/** One pooled worktree as `cadre worktrees list` shows it. */
export interface PooledWorktree {
	path: string;
	/** The commit it sits at. */
	commit: string | null;
	/** `idle` (ready for the next spawn), `busy` (being filled, handed out or returned), `interrupted` (its owner died mid-way). */
	state: "idle" | "busy" | "interrupted";
}

/** The pooled worktrees among git's worktree records. */
export function pooledWorktrees(records: { path: string; head: string | null; branch: string | null; locked: boolean; lockReason: string | null }[]): PooledWorktree[] {
	return records
		.filter((r) => isPoolPath(r.path) && r.branch === null && existsSync(join(r.path, ".git")))
		.map((r) => {
			const holder = lockHolder(r);
			return { path: r.path, commit: r.head, state: holder.state === "unlocked" ? "idle" : holder.state === "interrupted" ? "interrupted" : "busy" };
		});
}

/** What removing pooled worktrees did. */
export interface PoolCleanResult {
	removed: string[];
	kept: { path: string; reason: string }[];
}

/**
 * Removes idle pooled worktrees and those whose owner died while handling them (`worktrees clean`,
 * and the interrupted ones at session start). Each is taken first, as a hand-out would, so a spawn
 * racing with the clean gets it or does not; one with changes nobody made through cadre is kept.
 */
export async function removePooled(repo: Pick<RepoFacts, "root" | "commonDir">, pooled: PooledWorktree[], which: "all" | "interrupted"): Promise<PoolCleanResult> {
	const root = repo.root;
	const result: PoolCleanResult = { removed: [], kept: [] };
	await Promise.all(
		pooled.map(async (slot) => {
			if (slot.state === "busy" || (which === "interrupted" && slot.state !== "interrupted")) {
				if (slot.state === "busy") result.kept.push({ path: slot.path, reason: "a pi session is filling, handing out or returning it" });
				return;
			}
			const users = liveUsers(repo.commonDir, slot.path);
			if (users.length > 0) {
				result.kept.push({ path: slot.path, reason: usersReason(users) });
				return;
			}
			const taken = slot.state === "idle" ? lockSlot(slot.path) : await takeOverLock(slot.path, root);
			if (!taken) return;
			const status = await runGit(["status", "--porcelain=v2", "-z", "--untracked-files=all"], { cwd: slot.path });
			const changes = status.code === 0 ? parseStatus(status.stdout).entries.map((e) => e.path) : null;
			if (changes === null || changes.length > 0) {
				const why = changes === null ? `git status failed: ${firstLine(status.stderr)}` : `it has changes cadre did not make: ${changes.slice(0, 10).join(", ")}`;
				result.kept.push({ path: slot.path, reason: `${why}; look at it, then remove it with git worktree remove --force` });
				return;
			}
			if (await removeWorktree(slot.path, root)) result.removed.push(slot.path);
			else result.kept.push({ path: slot.path, reason: "git worktree remove failed" });
		}),
	);
	return result;
}
