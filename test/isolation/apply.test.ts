/**
 * Applying a run's branch back: clean merges and fast-forwards, conflicts that leave the parent's
 * tree exactly as before (with and without the merge-tree preflight), and refusals when uncommitted
 * parent changes could be lost. Listing and cleaning through the admin functions.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { takeFingerprint } from "../../src/isolation/escape-check.ts";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { createWorktree } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { applyCadreWorktree, cleanCadreWorktrees, listCadreWorktrees } from "../../src/isolation/worktree-admin.ts";
import { childRun } from "./support/child.ts";
import { commitAll, git, makeRepo, noFallback, type TestRepo, writeAt } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

/** Everything that makes up the parent's state: HEAD, index, work tree (untracked too). */
async function parentState(repo: TestRepo) {
	const fp = await takeFingerprint(repo.root, { content: true });
	return { fp, index: git(repo.root, "ls-files", "--stage"), branch: git(repo.root, "rev-parse", "--abbrev-ref", "HEAD") };
}

describe("applyCadreWorktree", () => {
	it("fast-forwards when the parent has not moved, and says so on a second apply", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const run = await childRun(repo, "ff", { "a.txt": "two\n", "b.txt": "new\n" });
		const applied = await applyCadreWorktree({ cwd: repo.root, id: "ff" });
		expect(applied.outcome).toBe("applied");
		expect(applied.fastForward).toBe(true);
		expect(applied.commit).toBe(run.commit);
		expect(repo.read("a.txt")).toBe("two\n");
		expect(repo.read("b.txt")).toBe("new\n");
		expect(applied.diffStat?.files.length).toBe(2);
		const again = await applyCadreWorktree({ cwd: repo.root, id: "ff" });
		expect(again.outcome).toBe("already-applied");
		expect(again.ok).toBe(true);
	});

	it("merges when the parent moved on, keeping unrelated uncommitted parent changes", async () => {
		const repo = makeRepo({ "a.txt": "one\n", "p.txt": "parent\n", "notes.txt": "n\n" });
		await childRun(repo, "merge1", { "a.txt": "child\n" });
		repo.write("p.txt", "parent moved on\n");
		commitAll(repo.root, "parent work");
		repo.write("notes.txt", "uncommitted, unrelated\n");
		const applied = await applyCadreWorktree({ cwd: repo.root, id: "merge1" });
		expect(applied.outcome).toBe("applied");
		expect(applied.fastForward).toBe(false);
		expect(git(repo.root, "rev-list", "--parents", "-n", "1", "HEAD").split(" ").length).toBe(3);
		expect(repo.read("a.txt")).toBe("child\n");
		expect(repo.read("p.txt")).toBe("parent moved on\n");
		expect(repo.read("notes.txt")).toBe("uncommitted, unrelated\n");
	});

	for (const preflight of [true, false]) {
		it(`on conflict reports the paths and leaves the parent exactly as before (preflight ${preflight})`, async () => {
			const repo = makeRepo({ "a.txt": "base\n", "c.txt": "c\n", "u.txt": "u\n" });
			await childRun(repo, "clash", { "a.txt": "child's version\n", "c.txt": "child c\n" });
			repo.write("a.txt", "parent's version\n");
			commitAll(repo.root, "parent edits a");
			repo.write("u.txt", "uncommitted unrelated\n");
			repo.write("scratch.txt", "untracked\n");
			const before = await parentState(repo);
			const applied = await applyCadreWorktree({ cwd: repo.root, id: "clash", preflight });
			expect(applied.outcome).toBe("conflict");
			expect(applied.ok).toBe(false);
			expect(applied.paths).toEqual(["a.txt"]);
			expect(applied.message).toContain("a.txt");
			expect(await parentState(repo)).toEqual(before);
			expect(repo.read("c.txt")).toBe("c\n");
			expect(existsSync(join(repo.root, ".git/MERGE_HEAD"))).toBe(false);
		});
	}

	it("refuses when uncommitted parent changes touch the branch's files, or the index has staged changes", async () => {
		const repo = makeRepo({ "a.txt": "one\n", "b.txt": "b\n" });
		await childRun(repo, "risky", { "a.txt": "child\n", "fresh.txt": "child's new file\n" });
		repo.write("a.txt", "uncommitted parent edit\n");
		repo.write("fresh.txt", "parent's untracked file of the same name\n");
		const before = await parentState(repo);
		const refused = await applyCadreWorktree({ cwd: repo.root, id: "risky" });
		expect(refused.outcome).toBe("refused");
		expect(refused.paths.sort()).toEqual(["a.txt", "fresh.txt"]);
		expect(refused.hint).toMatch(/stash/);
		expect(await parentState(repo)).toEqual(before);

		git(repo.root, "checkout", "--", "a.txt");
		repo.write("b.txt", "staged\n");
		git(repo.root, "add", "b.txt");
		const staged = await applyCadreWorktree({ cwd: repo.root, id: "risky" });
		expect(staged.outcome).toBe("refused");
		expect(staged.paths).toEqual(["b.txt"]);
	});

	it("refuses an unknown id", async () => {
		const repo = makeRepo();
		const missing = await applyCadreWorktree({ cwd: repo.root, id: "nope" });
		expect(missing.outcome).toBe("refused");
		expect(missing.message).toContain("cadre/nope");
	});

	it("refuses to apply the branch of a run still in progress", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const outcome = await createWorktree({ runId: "running", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
		if (outcome.kind !== "worktree") throw new Error(outcome.kind);
		writeAt(join(outcome.handle.worktreePath, "a.txt"), "half done\n");
		const early = await applyCadreWorktree({ cwd: repo.root, id: "running" });
		expect(early.outcome).toBe("refused");
		expect(early.message).toMatch(/still running|in progress/);
		await finishWorktree(outcome.handle, { type: "worker", description: "run running", status: "completed" });
		const applied = await applyCadreWorktree({ cwd: repo.root, id: "running" });
		expect(applied.outcome).toBe("applied");
		expect(repo.read("a.txt")).toBe("half done\n");
	});

	it("refuses an id that is not a run id instead of applying a branch outside cadre/", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		git(repo.root, "checkout", "-q", "-b", "feature");
		repo.write("a.txt", "feature work, not a cadre run\n");
		commitAll(repo.root, "feature");
		git(repo.root, "checkout", "-q", "main");
		const head = git(repo.root, "rev-parse", "HEAD");
		const outside = await applyCadreWorktree({ cwd: repo.root, id: "../feature" });
		expect(outside.outcome).toBe("refused");
		expect(git(repo.root, "rev-parse", "HEAD")).toBe(head);
		expect(repo.read("a.txt")).toBe("one\n");
	});

	it("refuses when applying would overwrite an ignored file of the parent", async () => {
		const repo = makeRepo({ ".gitignore": ".env\n", "a.txt": "one\n" });
		repo.write(".env", "SECRET=parent's own\n");
		// the child un-ignores .env and commits its own
		await childRun(repo, "envrun", { ".gitignore": "", ".env": "SECRET=placeholder\n" });
		const before = await parentState(repo);
		const refused = await applyCadreWorktree({ cwd: repo.root, id: "envrun" });
		expect(refused.outcome).toBe("refused");
		expect(refused.paths).toEqual([".env"]);
		expect(repo.read(".env")).toBe("SECRET=parent's own\n");
		expect(await parentState(repo)).toEqual(before);
	});
});

describe("listCadreWorktrees and cleanCadreWorktrees", () => {
	it("prunes the record of a vanished worktree even when its run left it locked (pi crashed)", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const outcome = await createWorktree({ runId: "crashed", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
		if (outcome.kind !== "worktree") throw new Error(outcome.kind);
		rmSync(outcome.handle.worktreePath, { recursive: true, force: true });
		const listed = await listCadreWorktrees(repo.root);
		if (!listed.ok) throw new Error(listed.message);
		expect(listed.entries.map((e) => [e.id, e.state])).toEqual([["crashed", "stale"]]);
		const cleaned = await cleanCadreWorktrees(repo.root);
		if (!cleaned.ok) throw new Error(cleaned.message);
		expect(git(repo.root, "worktree", "list", "--porcelain")).not.toContain(outcome.handle.worktreePath);
	});

	it("never removes the worktree of a run still in progress", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const outcome = await createWorktree({ runId: "busy", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
		if (outcome.kind !== "worktree") throw new Error(outcome.kind);
		const cleaned = await cleanCadreWorktrees(repo.root);
		if (!cleaned.ok) throw new Error(cleaned.message);
		expect(cleaned.removed).toEqual([]);
		expect(cleaned.kept.map((k) => k.id)).toEqual(["busy"]);
		expect(existsSync(join(outcome.handle.worktreePath, "a.txt"))).toBe(true);
		// the child writes after the clean; finishing commits it and removes the worktree as usual
		writeAt(join(outcome.handle.worktreePath, "a.txt"), "child\n");
		const report = await finishWorktree(outcome.handle, { type: "worker", description: "busy run", status: "completed" });
		expect(report.error).toBeNull();
		expect(report.kept).toBe(false);
		expect(git(repo.root, "show", "cadre/busy:a.txt")).toBe("child");
	});

	it("lists branches and kept worktrees with their state, and cleans only what has nothing left to keep", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\n", "a.txt": "one\n" });
		await childRun(repo, "done", { "a.txt": "applied work\n" });
		await applyCadreWorktree({ cwd: repo.root, id: "done" });
		await childRun(repo, "pending", { "b.txt": "unapplied work\n" });
		const keep = await childRun(repo, "withlog", { "c.txt": "c\n", "trace.log": "ignored\n" });
		expect(keep.kept).toBe(true);
		// a worktree whose ignored file was later removed has nothing left to keep
		const empty = await childRun(repo, "emptied", { "d.txt": "d\n", "x.log": "x\n" });
		git(empty.worktreePath, "clean", "-fdqX");

		const listing = await listCadreWorktrees(join(repo.root));
		if (!listing.ok) throw new Error(listing.message);
		const byId = Object.fromEntries(listing.entries.map((e) => [e.id, e]));
		expect(Object.keys(byId).sort()).toEqual(["done", "emptied", "pending", "withlog"]);
		expect(byId.done).toMatchObject({ state: "applied", applied: true, worktreePath: null });
		expect(byId.pending).toMatchObject({ state: "unapplied", applied: false, branch: "cadre/pending" });
		expect(byId.withlog).toMatchObject({ state: "kept", ignored: ["trace.log"], worktreePath: keep.worktreePath });
		expect(byId.emptied).toMatchObject({ state: "kept", ignored: [] });

		const cleaned = await cleanCadreWorktrees(repo.root);
		if (!cleaned.ok) throw new Error(cleaned.message);
		expect(cleaned.removed.map((r) => r.id)).toEqual(["emptied"]);
		expect(cleaned.kept.map((k) => [k.id, k.reason])).toEqual([["withlog", "ignored files: trace.log"]]);
		expect(cleaned.deletedBranches).toEqual(["cadre/done"]);
		expect(cleaned.unappliedBranches.sort()).toEqual(["cadre/emptied", "cadre/pending"]);
		expect(existsSync(empty.worktreePath)).toBe(false);
		expect(readFileSync(join(keep.worktreePath, "trace.log"), "utf8")).toBe("ignored\n");
		expect(git(repo.root, "show", "cadre/emptied:d.txt")).toBe("d");
	});
});
