/**
 * The worktree pool with real git (ADR 0085): a pooled worktree handed out is exactly the parent's
 * HEAD whatever it held before, a worktree holding anything git cannot commit never goes back, and
 * a pooled worktree a dead pi left half-handled is cleanly removable. `worktrees list|clean` show
 * and remove pooled worktrees.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { createWorktree, reopenWorktree, type WorktreeHandle, worktreeRepoDir } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { cleanCadreWorktrees, listCadreWorktrees } from "../../src/isolation/worktree-admin.ts";
import { poolSettled } from "../../src/isolation/worktree-pool.ts";
import { recoverInterruptedWorktrees } from "../../src/isolation/worktree-recovery.ts";
import { main } from "../../src/hosts/cli/main.ts";
import { formatOwner } from "../../src/runtime/owner.ts";
import { captured } from "./support/io.ts";
import { commitAll, git, makeRepo, pooled, type TestRepo, writeAt } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

const done = { type: "worker", description: "pool test", status: "completed" } as const;

async function spawnIn(repo: TestRepo, runId: string, settings = pooled(1)): Promise<WorktreeHandle> {
	const outcome = await createWorktree({ runId, parentCwd: repo.root, agentDir: repo.agentDir, settings });
	if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
	return outcome.handle;
}

/** The pool's folder and its worktrees, once background refills are done. */
async function poolOf(repo: TestRepo): Promise<string[]> {
	await poolSettled();
	const dir = join(worktreeRepoDir(repo.root, repo.agentDir, null), ".pool");
	return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [];
}

/** A worktree that has been through a run and went back to the pool. */
async function pooledAfterOneRun(repo: TestRepo): Promise<string> {
	const first = await spawnIn(repo, "first");
	const report = await finishWorktree(first, done);
	expect(report).toMatchObject({ kept: false, pooled: true });
	const [slot, ...more] = await poolOf(repo);
	expect(more).toEqual([]);
	return slot as string;
}

describe("the worktree pool", () => {
	it("hands out a pooled worktree moved to the parent's new HEAD: exactly that commit's tree, on cadre/<id>", async () => {
		const repo = makeRepo({ "a.txt": "one\n", "gone.txt": "deleted later\n", "src/keep.ts": "k\n" });
		const slot = await pooledAfterOneRun(repo);
		repo.write("a.txt", "two\n");
		repo.write("new/b.txt", "added\n");
		git(repo.root, "rm", "-q", "gone.txt");
		const head = commitAll(repo.root, "moved on");

		const handle = await spawnIn(repo, "second");
		expect(handle.pooled).toBe(true);
		expect(existsSync(slot)).toBe(false);
		expect(handle.worktreePath).toBe(join(worktreeRepoDir(repo.root, repo.agentDir, null), "second"));
		expect(git(handle.worktreePath, "rev-parse", "HEAD")).toBe(head);
		expect(git(handle.worktreePath, "symbolic-ref", "HEAD")).toBe("refs/heads/cadre/second");
		expect(git(handle.worktreePath, "status", "--porcelain", "--ignored", "--untracked-files=all")).toBe("");
		expect(readFileSync(join(handle.worktreePath, "a.txt"), "utf8")).toBe("two\n");
		expect(existsSync(join(handle.worktreePath, "gone.txt"))).toBe(false);
		expect(git(handle.worktreePath, "ls-files")).toBe(git(repo.root, "ls-files"));
		// the branch starts at HEAD: created from it (its reflog says so), the base is HEAD
		expect(handle.base).toBe(head);
		expect(git(repo.root, "reflog", "show", "--format=%gs", "cadre/second")).toContain("branch: Created from");
		// a child's work lands on its branch as in a new worktree
		writeAt(join(handle.worktreePath, "a.txt"), "child\n");
		const report = await finishWorktree(handle, done);
		expect(report).toMatchObject({ committed: true, kept: false, pooled: true, branch: "cadre/second" });
		expect(git(repo.root, "show", "cadre/second:a.txt")).toBe("child");
		expect(repo.read("a.txt")).toBe("two\n");
	});

	it("removes what a previous run left untracked or ignored, but keeps the included paths", async () => {
		const repo = makeRepo({ ".gitignore": "node_modules/\n*.log\n", "a.txt": "one\n" });
		repo.write("node_modules/dep/index.js", "module.exports = 1;\n");
		const settings = pooled(1, { include: [{ path: "node_modules", mode: "copy" }] });
		const first = await spawnIn(repo, "first", settings);
		expect(readFileSync(join(first.worktreePath, "node_modules/dep/index.js"), "utf8")).toBe("module.exports = 1;\n");
		expect(await finishWorktree(first, done)).toMatchObject({ kept: false, pooled: true });
		const [slot] = await poolOf(repo);
		// leftovers in the idle worktree, as a previous run could never leave them (finishing would keep it)
		writeAt(join(slot as string, "stray.txt"), "untracked\n");
		writeAt(join(slot as string, "debug.log"), "ignored\n");
		writeAt(join(slot as string, "a.txt"), "changed tracked file\n");

		const handle = await spawnIn(repo, "second", settings);
		expect(handle.pooled).toBe(true);
		expect(existsSync(join(handle.worktreePath, "stray.txt"))).toBe(false);
		expect(existsSync(join(handle.worktreePath, "debug.log"))).toBe(false);
		expect(readFileSync(join(handle.worktreePath, "a.txt"), "utf8")).toBe("one\n");
		expect(readFileSync(join(handle.worktreePath, "node_modules/dep/index.js"), "utf8")).toBe("module.exports = 1;\n");
		// the include was already there: nothing copied again
		expect(handle.setupReport?.include).toEqual([expect.objectContaining({ path: "node_modules", copied: 0 })]);
		await finishWorktree(handle, done);
	});

	it("never puts back a worktree holding what git cannot commit, or index flags that hide changes", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\n", "a.txt": "one\n" });
		const kept = await spawnIn(repo, "ignored");
		writeAt(join(kept.worktreePath, "build.log"), "the child's ignored output\n");
		const report = await finishWorktree(kept, done);
		expect(report).toMatchObject({ kept: true, pooled: false, ignoredFiles: ["build.log"] });
		expect(git(repo.root, "worktree", "list", "--porcelain")).not.toMatch(/locked/);

		const hiding = await spawnIn(repo, "hiding");
		writeAt(join(hiding.worktreePath, "a.txt"), "hidden from git status\n");
		git(hiding.worktreePath, "update-index", "--skip-worktree", "a.txt");
		expect(await finishWorktree(hiding, done)).toMatchObject({ kept: false, pooled: false });
		expect(await poolOf(repo)).toEqual([]);

		const next = await spawnIn(repo, "next");
		expect(next.pooled).toBe(false);
		expect(existsSync(join(next.worktreePath, "build.log"))).toBe(false);
		expect(readFileSync(join(kept.worktreePath, "build.log"), "utf8")).toBe("the child's ignored output\n");
		await finishWorktree(next, done);
	});

	it("refills in the background up to its size, counting the runs whose worktrees will come back", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const first = await spawnIn(repo, "r1", pooled(2));
		expect(first.pooled).toBe(false);
		// one idle worktree made in the background, plus the one the running child will hand back
		const filled = await poolOf(repo);
		expect(filled).toHaveLength(1);
		expect(git(filled[0] as string, "status", "--porcelain", "--untracked-files=all")).toBe("");
		expect(git(filled[0] as string, "rev-parse", "HEAD")).toBe(git(repo.root, "rev-parse", "HEAD"));
		expect(await finishWorktree(first, done)).toMatchObject({ kept: false, pooled: true });
		expect(await poolOf(repo)).toHaveLength(2);
		// a full pool: what comes back is removed
		const [a, b, c] = await Promise.all(["r2", "r3", "r4"].map((id) => spawnIn(repo, id, pooled(2))));
		expect([a, b, c].filter((h) => h?.pooled)).toHaveLength(2);
		for (const handle of [a, b, c]) await finishWorktree(handle as WorktreeHandle, done);
		expect(await poolOf(repo)).toHaveLength(2);
		expect(existsSync((c as WorktreeHandle).worktreePath)).toBe(false);
	});

	it("reopens a finished run's branch for a resume in a pooled worktree", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const first = await spawnIn(repo, "again");
		writeAt(join(first.worktreePath, "a.txt"), "first run\n");
		expect(await finishWorktree(first, done)).toMatchObject({ committed: true, pooled: true });
		const outcome = await reopenWorktree({ runId: "again", parentCwd: repo.root, agentDir: repo.agentDir, settings: pooled(1) });
		if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
		expect(outcome.handle).toMatchObject({ pooled: true, createdBranch: false, base: git(repo.root, "rev-parse", "cadre/again") });
		expect(readFileSync(join(outcome.handle.worktreePath, "a.txt"), "utf8")).toBe("first run\n");
		expect(git(outcome.handle.worktreePath, "symbolic-ref", "HEAD")).toBe("refs/heads/cadre/again");
		writeAt(join(outcome.handle.worktreePath, "a.txt"), "resumed\n");
		expect(await finishWorktree(outcome.handle, done)).toMatchObject({ committed: true, branch: "cadre/again" });
		expect(git(repo.root, "show", "cadre/again:a.txt")).toBe("resumed");
	});

	it("shows pooled worktrees in list, removes them in clean, and removes one a dead pi left locked", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		await finishWorktree(await spawnIn(repo, "r1", pooled(2)), done);
		const [idle, crashed] = await poolOf(repo);
		// a pi that died while handing this one out: locked in the name of an owner that is gone
		git(repo.root, "worktree", "lock", "--reason", formatOwner({ pid: process.pid, start: "1", host: hostname() }), crashed as string);
		const listing = await listCadreWorktrees(repo.root);
		if (!listing.ok) throw new Error(listing.message);
		expect(listing.pool.map((p) => p.state).sort()).toEqual(["idle", "interrupted"]);
		const io = captured(repo.root);
		expect(await main(["worktrees", "list"], io)).toBe(0);
		expect(io.stdout).toContain(`Pool: 1 idle, 1 left half-prepared by a pi that ended (clean removes them) in ${dirname(idle as string)}.`);

		// session start removes the interrupted one and reports nothing (it held no run's work)
		expect(await recoverInterruptedWorktrees(repo.root)).toEqual([]);
		expect(existsSync(crashed as string)).toBe(false);
		expect(existsSync(idle as string)).toBe(true);

		const cleaned = await cleanCadreWorktrees(repo.root);
		if (!cleaned.ok) throw new Error(cleaned.message);
		expect(cleaned.pool.removed).toEqual([idle]);
		expect(await poolOf(repo)).toEqual([]);
		expect(git(repo.root, "worktree", "list", "--porcelain").match(/^worktree /gm)?.length).toBe(1);
		expect(existsSync(dirname(idle as string))).toBe(true);
	});
});
