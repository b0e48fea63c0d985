/**
 * `copy_uncommitted` with real git (ADR 0087): the child's worktree starts from HEAD plus the
 * parent's staged, unstaged and untracked changes, made without touching the parent's index or
 * files; `cadre/<id>` holds only the child's work on top of their base commit, and
 * `worktrees apply` applies only that.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { createWorktree, type WorktreeHandle } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { applyCadreWorktree, cleanCadreWorktrees, listCadreWorktrees } from "../../src/isolation/worktree-admin.ts";
import { commitAll, git, makeRepo, noFallback, type TestRepo, writeAt } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

async function spawnCopying(repo: TestRepo, runId: string): Promise<WorktreeHandle> {
	const outcome = await createWorktree({ runId, parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback, copyUncommitted: true });
	if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
	return outcome.handle;
}

async function entry(repo: TestRepo, id: string) {
	const listing = await listCadreWorktrees(repo.root);
	if (!listing.ok) throw new Error(listing.message);
	return listing.entries.find((e) => e.id === id);
}

describe("copy_uncommitted", () => {
	it("shows the parent's staged, unstaged and untracked edits to the child; cadre/<id> holds only the child's work", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\n", "staged.txt": "s0\n", "unstaged.txt": "u0\n", "same.txt": "same\n" });
		const head = git(repo.root, "rev-parse", "HEAD");
		repo.write("staged.txt", "s1 staged by the parent\n");
		git(repo.root, "add", "staged.txt");
		repo.write("unstaged.txt", "u1 edited by the parent\n");
		repo.write("new.txt", "untracked, the parent's\n");
		repo.write("debug.log", "ignored, the parent's\n");
		// (the helper's own git status may refresh the index: look at it first)
		const status = git(repo.root, "status", "--porcelain");
		const index = readFileSync(join(repo.root, ".git", "index"));
		const indexTime = statSync(join(repo.root, ".git", "index")).mtimeMs;

		const handle = await spawnCopying(repo, "copy");
		const wt = handle.worktreePath;
		expect(readFileSync(join(wt, "staged.txt"), "utf8")).toBe("s1 staged by the parent\n");
		expect(readFileSync(join(wt, "unstaged.txt"), "utf8")).toBe("u1 edited by the parent\n");
		expect(readFileSync(join(wt, "new.txt"), "utf8")).toBe("untracked, the parent's\n");
		expect(existsSync(join(wt, "debug.log"))).toBe(false);
		expect(git(wt, "status", "--porcelain")).toBe("");
		// the parent's index and files are exactly as they were
		expect(readFileSync(join(repo.root, ".git", "index")).equals(index)).toBe(true);
		expect(statSync(join(repo.root, ".git", "index")).mtimeMs).toBe(indexTime);
		expect(git(repo.root, "status", "--porcelain")).toBe(status);
		expect(git(repo.root, "rev-parse", "HEAD")).toBe(head);
		// the base commit: the parent's changes on top of HEAD, the branch's start
		expect(handle.base).not.toBe(head);
		expect(git(repo.root, "rev-parse", `${handle.base}^`)).toBe(head);
		expect(git(repo.root, "log", "-1", "--format=%B", handle.base)).toContain("Cadre-Uncommitted-Base: copy");
		expect(handle.copiedUncommitted).toMatchObject({ commit: handle.base, onto: head });
		expect(handle.copiedUncommitted?.paths.sort()).toEqual(["new.txt", "staged.txt", "unstaged.txt"]);
		expect(handle.notices.join(" ")).toContain("were copied into the worktree");

		writeAt(join(wt, "unstaged.txt"), "u2 the child's edit on top\n");
		writeAt(join(wt, "child.txt"), "the child's new file\n");
		const report = await finishWorktree(handle, { type: "worker", description: "on top", status: "completed" });
		expect(report).toMatchObject({ committed: true, changed: true, kept: false });
		expect(report.diffStat?.files.map((f) => f.path).sort()).toEqual(["child.txt", "unstaged.txt"]);
		expect(git(repo.root, "rev-parse", "cadre/copy^")).toBe(handle.base);
		expect(git(repo.root, "diff", "--name-only", handle.base, "cadre/copy").split("\n").sort()).toEqual(["child.txt", "unstaged.txt"]);
		expect(await entry(repo, "copy")).toMatchObject({ fromUncommitted: true, hasWork: true, applied: false, base: handle.base });

		// applying now is refused: the parent still has the changes staged, and its own edit of unstaged.txt
		expect(await applyCadreWorktree({ cwd: repo.root, id: "copy" })).toMatchObject({ outcome: "refused", paths: ["staged.txt"] });
		git(repo.root, "restore", "--staged", "staged.txt");
		expect(await applyCadreWorktree({ cwd: repo.root, id: "copy" })).toMatchObject({ outcome: "refused", paths: ["unstaged.txt"] });
		// once the parent commits its changes, applying brings only the child's work
		const parentCommit = commitAll(repo.root, "the parent's own work");
		const applied = await applyCadreWorktree({ cwd: repo.root, id: "copy" });
		expect(applied).toMatchObject({ outcome: "applied", fastForward: false });
		expect(applied.diffStat?.files.map((f) => f.path).sort()).toEqual(["child.txt", "unstaged.txt"]);
		expect(git(repo.root, "rev-parse", "HEAD^")).toBe(parentCommit);
		expect(repo.read("unstaged.txt")).toBe("u2 the child's edit on top\n");
		expect(repo.read("staged.txt")).toBe("s1 staged by the parent\n");
		expect(repo.read("debug.log")).toBe("ignored, the parent's\n");
		expect(git(repo.root, "status", "--porcelain")).toBe("");
		// the base commit never reaches the parent's branch
		expect(() => git(repo.root, "merge-base", "--is-ancestor", handle.base, "HEAD")).toThrow();
		expect(await entry(repo, "copy")).toMatchObject({ applied: true });
		expect(await applyCadreWorktree({ cwd: repo.root, id: "copy" })).toMatchObject({ outcome: "already-applied" });
		const cleaned = await cleanCadreWorktrees(repo.root);
		if (!cleaned.ok) throw new Error(cleaned.message);
		expect(cleaned.deletedBranches).toEqual(["cadre/copy"]);
	});

	it("applies onto a parent whose uncommitted changes the child's work does not touch, and leaves them", async () => {
		const repo = makeRepo({ "a.txt": "a0\n", "b.txt": "b0\n" });
		repo.write("a.txt", "a1 the parent's\n");
		const handle = await spawnCopying(repo, "beside");
		writeAt(join(handle.worktreePath, "b.txt"), "b1 the child's\n");
		await finishWorktree(handle, { type: "worker", description: "beside", status: "completed" });
		const applied = await applyCadreWorktree({ cwd: repo.root, id: "beside" });
		expect(applied).toMatchObject({ outcome: "applied" });
		expect(git(repo.root, "show", "HEAD:a.txt")).toBe("a0");
		expect(repo.read("a.txt")).toBe("a1 the parent's\n");
		expect(repo.read("b.txt")).toBe("b1 the child's\n");
	});

	it("starts from HEAD itself when there is nothing uncommitted, and a child that adds nothing leaves nothing", async () => {
		const repo = makeRepo({ "a.txt": "a\n" });
		const handle = await spawnCopying(repo, "clean");
		expect(handle.base).toBe(git(repo.root, "rev-parse", "HEAD"));
		expect(handle.copiedUncommitted).toBeNull();
		repo.write("a.txt", "dirty\n");
		const dirty = await spawnCopying(repo, "idle");
		const report = await finishWorktree(dirty, { type: "worker", description: "idle", status: "completed" });
		expect(report).toMatchObject({ changed: false, kept: false, branch: null });
		expect(git(repo.root, "for-each-ref", "--format=%(refname:short)", "refs/heads/cadre/")).toBe("cadre/clean");
		await finishWorktree(handle, { type: "worker", description: "clean", status: "completed" });
	});
});
