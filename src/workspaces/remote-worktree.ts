/**
 * Worktree isolation across the wire (issue 25, ADR 0182). The workspace keeps a bare clone of the
 * parent's repository under its `root` (`<root>/repos/<name>.git`, kept between runs). Before an
 * isolated child starts, the clone is brought up to the parent's base commit by a git bundle:
 * created locally with only what the clone lacks, uploaded over SFTP on the same SSH connection,
 * fetched there. The child works in a remote `git worktree` on branch `cadre/<id>` at that commit.
 * When it ends, its work is committed there, bundled, downloaded and fetched into the parent's
 * repository as the local branch `cadre/<id>`, so `cadre worktrees list/apply` and the merge queue
 * treat it like any other. No system ssh and no git transport over SSH: only `git` on both ends.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, posix } from "node:path";
import { gitOrThrow, runGit } from "../isolation/git.ts";
import { run, type SshConnection, shq } from "./ssh-connection.ts";

/** Where one child's remote work lives. */
export interface RemoteWorktree {
	/** The workspace's bare clone. */
	clone: string;
	/** The child's remote worktree directory. */
	dir: string;
	branch: string;
	/** The commit it started from (the parent's HEAD, or its uncommitted-work base). */
	base: string;
}

const IDENTITY = "-c user.name=cadre -c user.email=cadre@localhost";

/** The clone's path for a local repository (one per repository name and path hash). */
export function clonePath(root: string, localRepo: string): string {
	let hash = 0;
	for (const ch of localRepo) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
	return posix.join(root, "repos", `${basename(localRepo).replace(/[^A-Za-z0-9._-]/g, "_")}-${hash.toString(16)}.git`);
}

async function upload(connection: SshConnection, local: string, remote: string): Promise<void> {
	const sftp = await connection.sftp();
	await new Promise<void>((resolve, reject) => sftp.fastPut(local, remote, (error) => (error ? reject(error) : resolve())));
}

async function download(connection: SshConnection, remote: string, local: string): Promise<void> {
	const sftp = await connection.sftp();
	await new Promise<void>((resolve, reject) => sftp.fastGet(remote, local, (error) => (error ? reject(error) : resolve())));
}

/** Syncs of one clone in this process run one at a time (the second finds the commit there). */
const syncing = new Map<string, Promise<unknown>>();

/**
 * Brings the workspace's clone up to `commit` of `localRepo` (creating it the first time): a
 * bundle of what the clone's refs do not already have. Returns the clone's path.
 */
export async function syncClone(connection: SshConnection, root: string, localRepo: string, commit: string): Promise<string> {
	const key = `${connection.target.user}@${connection.target.host}:${connection.target.port}:${clonePath(root, localRepo)}`;
	const before = syncing.get(key) ?? Promise.resolve();
	const mine = before.catch(() => undefined).then(() => syncOnce(connection, root, localRepo, commit));
	syncing.set(key, mine);
	try {
		return await mine;
	} finally {
		if (syncing.get(key) === mine) syncing.delete(key);
	}
}

async function syncOnce(connection: SshConnection, root: string, localRepo: string, commit: string): Promise<string> {
	const clone = clonePath(root, localRepo);
	// one round trip: create the clone if missing, then say whether it has the commit, else its refs
	const state = await run(
		connection,
		`mkdir -p ${shq(posix.join(root, "tmp"))} && { [ -d ${shq(clone)} ] || git init -q --bare ${shq(clone)}; } && if git -C ${shq(clone)} cat-file -e ${shq(`${commit}^{commit}`)} 2>/dev/null; then echo HAS; else git -C ${shq(clone)} for-each-ref --format='%(objectname)'; fi`,
	);
	const lines = state.toString().split("\n").filter(Boolean);
	if (lines[0] === "HAS") return clone;
	const known = [...new Set(lines)];
	const exclude: string[] = [];
	for (const sha of known) if ((await runGit(["cat-file", "-e", `${sha}^{commit}`], { cwd: localRepo })).code === 0) exclude.push(`^${sha}`);
	const temp = mkdtempSync(join(tmpdir(), "cadre-bundle-"));
	try {
		const bundle = join(temp, "sync.bundle");
		// one ref per sync: two workspaces synced from this repository at once must not delete each other's
		const ref = `refs/cadre-sync/${commit}-${process.pid}-${randomBytes(4).toString("hex")}`;
		await gitOrThrow(["update-ref", ref, commit], { cwd: localRepo });
		try {
			await gitOrThrow(["bundle", "create", "-q", bundle, ref, ...exclude], { cwd: localRepo });
		} finally {
			await runGit(["update-ref", "-d", ref], { cwd: localRepo });
		}
		const remote = posix.join(root, "tmp", `sync-${commit}-${process.pid}-${randomBytes(4).toString("hex")}.bundle`);
		await upload(connection, bundle, remote);
		await run(connection, `git -C ${shq(clone)} fetch -q ${shq(remote)} ${shq(`+${ref}:refs/cadre/base/${commit}`)}; code=$?; rm -f ${shq(remote)}; exit $code`);
	} finally {
		rmSync(temp, { recursive: true, force: true });
	}
	return clone;
}

/** The child's remote worktree on `cadre/<id>` at `base` (the clone synced first). */
export async function createRemoteWorktree(connection: SshConnection, root: string, localRepo: string, id: string, base: string): Promise<RemoteWorktree> {
	const clone = await syncClone(connection, root, localRepo, base);
	const dir = posix.join(root, "worktrees", id);
	const branch = `cadre/${id}`;
	// the escape check's start marker is set in the same round trip, once the worktree is there
	await run(connection, `mkdir -p ${shq(posix.join(root, "worktrees"))} && git -C ${shq(clone)} worktree add -q -b ${shq(branch)} ${shq(dir)} ${shq(base)} && touch ${shq(startMarker(root, id))}`);
	return { clone, dir, branch, base };
}

/**
 * The remote worktree of a resumed run, on the branch of its resume chain's first run
 * (`cadre/<chainId>`): the kept one when it is still there (its work was never fetched home, the
 * link having been lost), else a new one at the local branch's tip — the work fetched home — with
 * the workspace's branch reset to it.
 */
export async function reopenRemoteWorktree(connection: SshConnection, root: string, localRepo: string, chainId: string, keptBase: string): Promise<RemoteWorktree> {
	const dir = posix.join(root, "worktrees", chainId);
	const branch = `cadre/${chainId}`;
	const clone = clonePath(root, localRepo);
	const kept = await run(connection, `if [ -d ${shq(dir)} ] && [ "$(git -C ${shq(dir)} rev-parse --abbrev-ref HEAD 2>/dev/null)" = ${shq(branch)} ]; then touch ${shq(startMarker(root, chainId))} && echo KEPT; fi`);
	if (kept.toString().trim() === "KEPT") return { clone, dir, branch, base: keptBase };
	const local = await runGit(["rev-parse", "--verify", "-q", `refs/heads/${branch}^{commit}`], { cwd: localRepo });
	if (local.code !== 0) throw new Error(`the branch ${branch} is not in ${localRepo} and its remote worktree is gone: the run cannot be resumed on the workspace`);
	const tip = local.stdout.trim();
	await syncClone(connection, root, localRepo, tip);
	await run(connection, `mkdir -p ${shq(posix.join(root, "worktrees"))} && git -C ${shq(clone)} worktree prune && git -C ${shq(clone)} worktree add -q -B ${shq(branch)} ${shq(dir)} ${shq(tip)} && touch ${shq(startMarker(root, chainId))}`);
	return { clone, dir, branch, base: tip };
}

/** Whether a child's remote worktree is still there. */
export async function remoteWorktreeExists(connection: SshConnection, worktree: RemoteWorktree): Promise<boolean> {
	return (await run(connection, `if [ -d ${shq(worktree.dir)} ]; then echo YES; fi`)).toString().trim() === "YES";
}

/** Removes a child's remote worktree once its work is home (the clone keeps the branch). */
export async function removeRemoteWorktree(connection: SshConnection, worktree: RemoteWorktree): Promise<void> {
	await run(connection, `git -C ${shq(worktree.clone)} worktree remove --force ${shq(worktree.dir)}`);
}

/** Removes a remote worktree and its branch (a child that could not be started). */
export async function discardRemoteWorktree(connection: SshConnection, worktree: RemoteWorktree): Promise<void> {
	await run(connection, `git -C ${shq(worktree.clone)} worktree remove --force ${shq(worktree.dir)} && git -C ${shq(worktree.clone)} branch -q -D ${shq(worktree.branch)}`);
}

/** Commits what the child left uncommitted in its remote worktree; true when there was something. */
export async function commitRemoteWork(connection: SshConnection, worktree: RemoteWorktree, id: string): Promise<boolean> {
	const out = await run(connection, `cd ${shq(worktree.dir)} && git add -A && if git diff --cached --quiet; then echo clean; else git ${IDENTITY} commit -q -m ${shq(`cadre: uncommitted work of ${id}`)} && echo committed; fi`);
	return out.toString().trim() === "committed";
}

/** A script printing `TIP <sha>` of `cadre/<id>` and bundling what it has beyond the base (none when equal). */
function tipScript(clone: string, branch: string, base: string, bundle: string): string {
	return `tip=$(git -C ${shq(clone)} rev-parse ${shq(`refs/heads/${branch}`)}) && echo "TIP $tip" && if [ "$tip" != ${shq(base)} ]; then git -C ${shq(clone)} bundle create -q ${shq(bundle)} ${shq(`refs/heads/${branch}`)} ${shq(`^${base}`)}; fi`;
}

/** Sets the local `cadre/<id>` to `tip`, downloading and fetching the bundle when the commits are not here. */
async function bringHome(connection: SshConnection, localRepo: string, branch: string, base: string, tip: string, bundle: string): Promise<void> {
	const cleanup = () => void connection.exec(`rm -f ${shq(bundle)}`).catch(() => {});
	if (tip === base || (await runGit(["cat-file", "-e", `${tip}^{commit}`], { cwd: localRepo })).code === 0) {
		await gitOrThrow(["update-ref", `refs/heads/${branch}`, tip], { cwd: localRepo });
		if (tip !== base) cleanup();
		return;
	}
	const temp = mkdtempSync(join(tmpdir(), "cadre-bundle-"));
	try {
		const local = join(temp, "back.bundle");
		await download(connection, bundle, local);
		if (!statSync(local).isFile()) throw new Error(`workspace bundle of ${branch} did not arrive`);
		await gitOrThrow(["fetch", "-q", local, `+refs/heads/${branch}:refs/heads/${branch}`], { cwd: localRepo });
	} finally {
		rmSync(temp, { recursive: true, force: true });
		cleanup();
	}
}

/**
 * Fetches `cadre/<id>` of the remote clone into `localRepo` as the local branch `cadre/<id>`
 * (forced: the remote is where the child's work is). Returns the tip.
 */
export async function fetchRemoteBranch(connection: SshConnection, root: string, localRepo: string, id: string, base: string): Promise<string> {
	const clone = clonePath(root, localRepo);
	const branch = `cadre/${id}`;
	const bundle = posix.join(root, "tmp", `back-${id}.bundle`);
	const out = (await run(connection, tipScript(clone, branch, base, bundle))).toString();
	const tip = /^TIP (\S+)/m.exec(out)?.[1] ?? "";
	await bringHome(connection, localRepo, branch, base, tip, bundle);
	return tip;
}

/**
 * Ends a child's remote work in one round trip — the escape check, a commit of what it left, the
 * tip and its bundle — then brings it home as `cadre/<id>`.
 */
export async function finishRemoteWorktree(connection: SshConnection, root: string, localRepo: string, id: string, worktree: RemoteWorktree): Promise<{ tip: string; committed: boolean; escaped: string[] }> {
	const bundle = posix.join(root, "tmp", `back-${id}.bundle`);
	const script = [
		`${escapeScript(root, worktree, id)} | sed 's/^/ESC /'`,
		`cd ${shq(worktree.dir)} && git add -A && if git diff --cached --quiet; then echo CLEAN; else git ${IDENTITY} commit -q -m ${shq(`cadre: uncommitted work of ${id}`)} && echo COMMITTED; fi`,
		tipScript(worktree.clone, worktree.branch, worktree.base, bundle),
	].join(" && ");
	const out = (await run(connection, `{ ${script}; }`)).toString();
	const tip = /^TIP (\S+)/m.exec(out)?.[1] ?? "";
	const escaped = [...out.matchAll(/^ESC (.+)$/gm)].map((m) => m[1] as string);
	await bringHome(connection, localRepo, worktree.branch, worktree.base, tip, bundle);
	// the work is home: the remote tree goes, as a local worktree does (a resume makes a new one)
	await removeRemoteWorktree(connection, worktree);
	return { tip, committed: /^COMMITTED$/m.test(out), escaped };
}

/** The marker file the remote escape check compares modification times with. */
function startMarker(root: string, id: string): string {
	return posix.join(root, "tmp", `start-${id}`);
}

/**
 * The remote escape check (issue 25), as a script: files under the workspace's `root` changed since the run's
 * start outside every run's worktree — beside them, in the clone's own files — leaving out what git
 * writes for runs (objects, refs, logs, worktree admin dirs), cadre's temp files and its sandbox helper (`.cadre`). Runs share the
 * workspace, so a write into another run's worktree cannot be told from that run's own work and is
 * not flagged; and only `root` is looked at, not the rest of the remote machine.
 */
function escapeScript(root: string, worktree: RemoteWorktree, id: string): string {
	const marker = startMarker(root, id);
	const prune = [posix.join(root, "tmp"), posix.join(root, ".cadre"), posix.join(worktree.clone, "objects"), posix.join(worktree.clone, "refs"), posix.join(worktree.clone, "logs"), posix.join(worktree.clone, "worktrees")];
	const pruned = [`-path ${shq(posix.join(root, "worktrees", "*"))} -type d -prune`, ...prune.map((p) => `-path ${shq(p)} -prune`)].join(" -o ");
	return `{ if [ -e ${shq(marker)} ]; then find ${shq(root)} \\( ${pruned} \\) -o -type f -newer ${shq(marker)} -print | grep -v -E '/(packed-refs|ORIG_HEAD|FETCH_HEAD|HEAD|index|config)$' | head -n 50; rm -f ${shq(marker)}; fi; }`;
}

/** The remote escape check on its own (see {@link escapeScript}). */
export async function remoteEscapes(connection: SshConnection, root: string, worktree: RemoteWorktree, id: string): Promise<string[]> {
	return (await run(connection, escapeScript(root, worktree, id))).toString().split("\n").filter(Boolean);
}
