/**
 * The parent's uncommitted work as a commit (ADR 0087): `copy_uncommitted` starts a child's worktree
 * from HEAD plus the parent's staged, unstaged and untracked (not ignored) changes. They are
 * committed on top of HEAD as a separate *base commit* without touching the parent's index or files:
 * a copy of the index in a temporary file (`GIT_INDEX_FILE`), `git add -A` into it (stat data first,
 * so only changed files are hashed), `write-tree`, `commit-tree`. `cadre/<id>` starts at that commit,
 * so the branch's own commits hold only the child's work, and `cadre worktrees apply` applies only
 * those (from the base commit to the tip), never the parent's changes again.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstLine, runGit } from "./git.ts";

/** The trailer that marks a base commit of the parent's uncommitted changes, with the run id. */
export const UNCOMMITTED_TRAILER = "Cadre-Uncommitted-Base";

/** Options of `commitUncommitted`. */
export interface UncommittedOptions {
	/** The parent repository's top level and git directory (its index is copied, never written). */
	root: string;
	gitDir: string;
	/** The parent's HEAD commit. */
	head: string;
	runId: string;
	/** Environment with the commit identity (`commitIdentityEnv`). */
	env: Record<string, string>;
}

/**
 * Commits the parent's working tree state on top of `head`: returns the base commit, or `head`
 * itself when the tree is exactly HEAD's (nothing uncommitted). Throws with git's words on failure.
 */
export async function commitUncommitted(options: UncommittedOptions): Promise<string> {
	const dir = mkdtempSync(join(tmpdir(), "cadre-index-"));
	const index = join(dir, "index");
	try {
		try {
			copyFileSync(join(options.gitDir, "index"), index);
		} catch {
			// no index yet: git builds one from nothing
		}
		const env = { ...options.env, GIT_INDEX_FILE: index };
		const add = await runGit(["add", "-A", "--", ":(top)"], { cwd: options.root, env });
		if (add.code !== 0) throw new Error(`git add (into a temporary index) failed: ${firstLine(add.stderr)}`);
		const [tree, headTree] = await Promise.all([
			runGit(["write-tree"], { cwd: options.root, env }),
			runGit(["rev-parse", `${options.head}^{tree}`], { cwd: options.root }),
		]);
		if (tree.code !== 0) throw new Error(`git write-tree failed: ${firstLine(tree.stderr)}`);
		if (tree.stdout.trim() === headTree.stdout.trim()) return options.head;
		const message =
			`cadre: the parent's uncommitted changes at the start of run ${options.runId}\n\n` +
			`The staged, unstaged and untracked changes of ${options.root} on top of ${options.head} when the ` +
			`sub-agent run ${options.runId} started, copied so that its worktree starts from them. cadre/${options.runId} ` +
			"holds the run's own work on top of this commit; `cadre worktrees apply` applies only that work.\n\n" +
			`${UNCOMMITTED_TRAILER}: ${options.runId}\n`;
		const commit = await runGit(["commit-tree", "--no-gpg-sign", tree.stdout.trim(), "-p", options.head, "-m", message], {
			cwd: options.root,
			env: options.env,
		});
		if (commit.code !== 0) throw new Error(`git commit-tree failed: ${firstLine(commit.stderr)}`);
		return commit.stdout.trim();
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * The base commit of run `id`'s uncommitted changes on its branch (between `head` and `tip`, so not
 * one HEAD already holds), found by its trailer; null when the branch has none. One subprocess.
 */
export async function uncommittedBaseOf(root: string, id: string, head: string, tip: string): Promise<string | null> {
	const pattern = `^${UNCOMMITTED_TRAILER}: ${id.replace(/[.]/g, "\\.")}$`;
	const found = await runGit(["log", "--format=%H", "-n", "1", `--grep=${pattern}`, tip, `^${head}`, "--"], { cwd: root });
	return found.code === 0 && found.stdout.trim() !== "" ? found.stdout.trim() : null;
}

/** Which of `commits` are base commits of uncommitted changes (one subprocess). */
export async function uncommittedBases(root: string, commits: string[]): Promise<Set<string>> {
	if (commits.length === 0) return new Set();
	const format = `--format=%H%x00%(trailers:key=${UNCOMMITTED_TRAILER},valueonly,separator=%x2C)%x01`;
	const listed = await runGit(["log", "--no-walk=unsorted", format, ...commits, "--"], { cwd: root });
	const bases = new Set<string>();
	for (const record of listed.code === 0 ? listed.stdout.split("\x01") : []) {
		const [commit = "", trailer = ""] = record.trim().split("\0");
		if (trailer.trim() !== "") bases.add(commit);
	}
	return bases;
}

/**
 * The tree HEAD would have after applying a branch's work from `base` to `tip` (a three-way merge
 * whose merge base is `base`, not the branches' common ancestor), with the conflicting paths. Uses
 * `git merge-tree --write-tree` (git ≥ 2.38) on two commits made to share `base`'s tree as their only
 * ancestor. Returns null when git cannot do it.
 */
export async function mergeWorkOnto(root: string, head: string, base: string, tip: string): Promise<{ tree: string; conflicts: string[] } | null> {
	const make = async (tree: string, parent: string | null) => {
		const args = ["commit-tree", "--no-gpg-sign", tree, ...(parent ? ["-p", parent] : []), "-m", "cadre: merge helper"];
		const made = await runGit(args, { cwd: root, env: HELPER_IDENTITY });
		return made.code === 0 ? made.stdout.trim() : null;
	};
	const root0 = await make(`${base}^{tree}`, null);
	if (!root0) return null;
	const [ours, theirs] = await Promise.all([make(`${head}^{tree}`, root0), make(`${tip}^{tree}`, root0)]);
	if (!ours || !theirs) return null;
	const merged = await runGit(["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs], { cwd: root });
	if (merged.code !== 0 && merged.code !== 1) return null;
	const [tree = "", ...paths] = merged.stdout.split("\0").filter((part) => part !== "");
	return { tree, conflicts: merged.code === 1 ? [...new Set(paths)] : [] };
}

/** The helper commits of `mergeWorkOnto` are never kept: any identity will do. */
const HELPER_IDENTITY = {
	GIT_AUTHOR_NAME: "cadre",
	GIT_AUTHOR_EMAIL: "cadre@localhost",
	GIT_COMMITTER_NAME: "cadre",
	GIT_COMMITTER_EMAIL: "cadre@localhost",
};
