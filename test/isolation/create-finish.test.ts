/**
 * Creating and finishing a run's worktree with real git: where it goes, what it starts from, what
 * the child's edits become, and when the worktree is kept or removed.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { createWorktree, isValidRunId, type IsolationOutcome, reopenWorktree, type WorktreeHandle, worktreeRepoDir } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { commitAll, git, makeRepo, noFallback, withFallback, writeAt } from "./support/repo.ts";

function handleOf(outcome: IsolationOutcome): WorktreeHandle {
	if (outcome.kind !== "worktree") throw new Error(`expected a worktree, got ${JSON.stringify(outcome)}`);
	return outcome.handle;
}

const info = { type: "worker", description: "fix the parser", status: "completed" } as const;

beforeEach(() => clearGitFactsCache());

describe("createWorktree", () => {
	it("creates the worktree under <agentDir>/cadre/worktrees/<repo>-<hash>/<id> from the parent's HEAD, on cadre/<id>", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		git(repo.root, "checkout", "-q", "-b", "feature");
		repo.write("a.txt", "two\n");
		const featureHead = commitAll(repo.root, "on feature");
		const handle = handleOf(await createWorktree({ runId: "r1", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		expect(handle.worktreePath).toBe(join(worktreeRepoDir(repo.root, repo.agentDir, null), "r1"));
		expect(relative(join(repo.agentDir, "cadre", "worktrees"), handle.worktreePath).startsWith("..")).toBe(false);
		expect(handle.worktreePath.startsWith(repo.root)).toBe(false);
		expect(handle.branch).toBe("cadre/r1");
		expect(handle.base).toBe(featureHead);
		expect(handle.parentBranch).toBe("feature");
		expect(git(handle.worktreePath, "rev-parse", "HEAD")).toBe(featureHead);
		expect(git(handle.worktreePath, "rev-parse", "--abbrev-ref", "HEAD")).toBe("cadre/r1");
		expect(readFileSync(join(handle.worktreePath, "a.txt"), "utf8")).toBe("two\n");
		expect(handle.parentDirty).toEqual([]);
	});

	it("maps the parent's subdirectory and a request cwd to the same place inside the worktree", async () => {
		const repo = makeRepo({ "pkg/sub/x.txt": "x\n", "other/y.txt": "y\n" });
		const fromSub = handleOf(
			await createWorktree({ runId: "sub1", parentCwd: join(repo.root, "pkg"), agentDir: repo.agentDir, settings: noFallback }),
		);
		expect(fromSub.cwd).toBe(join(fromSub.worktreePath, "pkg"));
		const fromRequest = handleOf(
			await createWorktree({
				runId: "sub2",
				parentCwd: join(repo.root, "pkg"),
				requestCwd: "../other",
				agentDir: repo.agentDir,
				settings: noFallback,
			}),
		);
		expect(fromRequest.cwd).toBe(join(fromRequest.worktreePath, "other"));
		expect(existsSync(join(fromRequest.cwd, "y.txt"))).toBe(true);
	});

	it("honours settings worktree.baseDir", async () => {
		const repo = makeRepo();
		const baseDir = realpathSync(mkdtempSync(join(tmpdir(), "cadre-base-")));
		const handle = handleOf(
			await createWorktree({
				runId: "based",
				parentCwd: repo.root,
				agentDir: repo.agentDir,
				settings: { baseDir, allowSharedFallback: false },
			}),
		);
		expect(handle.worktreePath.startsWith(`${baseDir}/`)).toBe(true);
		expect(handle.worktreePath.endsWith("/based")).toBe(true);
	});

	it("reports the parent's uncommitted changes as invisible to the child", async () => {
		const repo = makeRepo({ "a.txt": "committed\n" });
		repo.write("a.txt", "edited but not committed\n");
		repo.write("new.txt", "untracked\n");
		const handle = handleOf(await createWorktree({ runId: "dirty", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		expect(handle.parentDirty.sort()).toEqual(["a.txt", "new.txt"]);
		expect(handle.notices.join(" ")).toMatch(/2 uncommitted changes .*could not see/);
		expect(readFileSync(join(handle.worktreePath, "a.txt"), "utf8")).toBe("committed\n");
		expect(existsSync(join(handle.worktreePath, "new.txt"))).toBe(false);
	});

	it("refuses outside a git repository, and runs shared only with allowSharedFallback", async () => {
		const dir = realpathSync(mkdtempSync(join(tmpdir(), "cadre-norepo-")));
		const agentDir = join(dir, "agent");
		const refused = await createWorktree({ runId: "n1", parentCwd: dir, agentDir, settings: noFallback });
		expect(refused.kind).toBe("refused");
		if (refused.kind === "refused") {
			expect(refused.failure.code).toBe("not-a-repository");
			expect(refused.failure.message).toContain(dir);
			expect(refused.failure.hint).toMatch(/git init/);
		}
		const shared = await createWorktree({ runId: "n2", parentCwd: dir, agentDir, settings: withFallback });
		expect(shared.kind).toBe("shared-fallback");
		if (shared.kind === "shared-fallback") {
			expect(shared.cwd).toBe(dir);
			expect(shared.notice).toMatch(/^isolation: shared-fallback — /);
			expect(shared.notice).toContain("shared directory");
		}
		expect(existsSync(join(agentDir, "cadre"))).toBe(false);
	});

	it("refuses when git is missing, naming the cause", async () => {
		const repo = makeRepo();
		const saved = process.env.CADRE_GIT;
		process.env.CADRE_GIT = join(repo.root, "no-such-git-binary");
		try {
			const refused = await createWorktree({ runId: "g1", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
			expect(refused.kind).toBe("refused");
			if (refused.kind === "refused") expect(refused.failure.code).toBe("git-missing");
		} finally {
			if (saved === undefined) delete process.env.CADRE_GIT;
			else process.env.CADRE_GIT = saved;
		}
	});

	it("refuses when creation fails (the branch already exists) and in a repository without commits", async () => {
		const repo = makeRepo();
		git(repo.root, "branch", "cadre/taken");
		const taken = await createWorktree({ runId: "taken", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
		expect(taken.kind).toBe("refused");
		if (taken.kind === "refused") {
			expect(taken.failure.code).toBe("creation-failed");
			expect(taken.failure.message).toMatch(/already exists/);
		}
		const empty = makeRepo({});
		const unborn = await createWorktree({ runId: "u1", parentCwd: empty.root, agentDir: empty.agentDir, settings: noFallback });
		expect(unborn.kind === "refused" && unborn.failure.code).toBe("no-commits");
	});

	it("refuses a base directory inside the working tree and ids that are not ref components", async () => {
		const repo = makeRepo();
		const inside = await createWorktree({
			runId: "in1",
			parentCwd: repo.root,
			agentDir: repo.agentDir,
			settings: { baseDir: join(repo.root, ".worktrees"), allowSharedFallback: false },
		});
		expect(inside.kind === "refused" && inside.failure.code).toBe("base-dir-inside-repository");
		for (const bad of ["a..b", "-x", "x.lock", "a/b", "a b", "", "x~1", "@{u}"]) expect(isValidRunId(bad)).toBe(false);
		for (const good of ["r1", "abc-123_x.y", "0f3a"]) expect(isValidRunId(good)).toBe(true);
		const badId = await createWorktree({ runId: "a..b", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
		expect(badId.kind === "refused" && badId.failure.code).toBe("bad-run-id");
	});
});

describe("finishWorktree", () => {
	it("commits a child's edits to cadre/<id> and leaves the parent's tree untouched", async () => {
		const repo = makeRepo({ "a.txt": "one\n", "b.txt": "b\n" });
		const handle = handleOf(await createWorktree({ runId: "edit1", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		writeAt(join(handle.worktreePath, "a.txt"), "one\nchanged by child\n");
		writeAt(join(handle.worktreePath, "new/file.txt"), "brand new\n");
		rmSync(join(handle.worktreePath, "b.txt"));
		const report = await finishWorktree(handle, info);
		expect(report.error).toBeNull();
		expect(report.committed).toBe(true);
		expect(report.changed).toBe(true);
		expect(report.branch).toBe("cadre/edit1");
		expect(report.commit).toBe(git(repo.root, "rev-parse", "cadre/edit1"));
		expect(report.diffStat?.files.map((f) => f.path).sort()).toEqual(["a.txt", "b.txt", "new/file.txt"]);
		expect(report.diffStat?.summary).toBe("3 files changed, 2 insertions(+), 1 deletion(-)");
		expect(report.kept).toBe(false);
		expect(existsSync(handle.worktreePath)).toBe(false);
		// the parent's tree is exactly as before
		expect(repo.read("a.txt")).toBe("one\n");
		expect(existsSync(join(repo.root, "new/file.txt"))).toBe(false);
		expect(git(repo.root, "status", "--porcelain")).toBe("");
		// commit message names type and description; the repository identity is used
		expect(git(repo.root, "log", "-1", "--format=%s", "cadre/edit1")).toBe("cadre(worker): fix the parser");
		expect(git(repo.root, "log", "-1", "--format=%b", "cadre/edit1")).toContain("ended completed");
		expect(git(repo.root, "log", "-1", "--format=%an <%ae>", "cadre/edit1")).toBe("Repo Owner <owner@example.test>");
		expect(git(repo.root, "show", "cadre/edit1:a.txt")).toBe("one\nchanged by child");
		expect(report.summary).toContain("cadre/edit1");
	});

	it("commits an aborted child's partial edits too", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handle = handleOf(await createWorktree({ runId: "abort1", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		writeAt(join(handle.worktreePath, "half.txt"), "half-written");
		const report = await finishWorktree(handle, { type: "worker", description: "long job", status: "aborted" });
		expect(report.committed).toBe(true);
		expect(git(repo.root, "show", "cadre/abort1:half.txt")).toBe("half-written");
		expect(git(repo.root, "log", "-1", "--format=%b", "cadre/abort1")).toContain("ended aborted");
	});

	it("commits as cadre <cadre@localhost> when the repository has no identity, with hooks and signing off", async () => {
		const repo = makeRepo({ "a.txt": "one\n" }, { identity: false });
		// a failing pre-commit hook and a signing request must not block cadre's commit
		writeAt(join(repo.root, ".git/hooks/pre-commit"), "#!/bin/sh\nexit 1\n");
		chmodSync(join(repo.root, ".git/hooks/pre-commit"), 0o755);
		git(repo.root, "config", "commit.gpgsign", "true");
		const handle = handleOf(await createWorktree({ runId: "anon", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		writeAt(join(handle.worktreePath, "a.txt"), "two\n");
		const report = await finishWorktree(handle, info);
		expect(report.error).toBeNull();
		expect(git(repo.root, "log", "-1", "--format=%an <%ae>|%cn <%ce>", "cadre/anon")).toBe(
			"cadre <cadre@localhost>|cadre <cadre@localhost>",
		);
	});

	it("removes a worktree with no changes at all (and its unused branch)", async () => {
		const repo = makeRepo();
		const handle = handleOf(await createWorktree({ runId: "idle", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		const report = await finishWorktree(handle, info);
		expect(report.changed).toBe(false);
		expect(report.committed).toBe(false);
		expect(report.kept).toBe(false);
		expect(report.branch).toBeNull();
		expect(existsSync(handle.worktreePath)).toBe(false);
		expect(git(repo.root, "branch", "--list", "cadre/*")).toBe("");
		expect(git(repo.root, "worktree", "list", "--porcelain")).not.toContain(handle.worktreePath);
	});

	it("keeps a worktree whose child created ignored files, and lists them", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\nbuild/\n", "a.txt": "one\n" });
		const handle = handleOf(await createWorktree({ runId: "ign", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		writeAt(join(handle.worktreePath, "debug.log"), "log\n");
		writeAt(join(handle.worktreePath, "build/out.bin"), "bin\n");
		writeAt(join(handle.worktreePath, "a.txt"), "two\n");
		const report = await finishWorktree(handle, info);
		expect(report.committed).toBe(true);
		expect(report.kept).toBe(true);
		expect(report.ignoredFiles.sort()).toEqual(["build/", "debug.log"]);
		expect(report.keptBecause).toContain("debug.log");
		expect(readFileSync(join(handle.worktreePath, "debug.log"), "utf8")).toBe("log\n");
		expect(git(repo.root, "show", "cadre/ign:a.txt")).toBe("two");
		expect(report.summary).toContain("kept");
	});

	it("keeps a worktree holding a nested repository the child created, and keeps the child's own commits", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handle = handleOf(await createWorktree({ runId: "nest", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		writeAt(join(handle.worktreePath, "a.txt"), "committed by the child\n");
		commitAll(handle.worktreePath, "child's own commit");
		writeAt(join(handle.worktreePath, "vendor/lib/x.txt"), "inside a nested repo\n");
		git(join(handle.worktreePath, "vendor/lib"), "init", "-q");
		writeAt(join(handle.worktreePath, "loose.txt"), "uncommitted\n");
		const report = await finishWorktree(handle, info);
		expect(report.error).toBeNull();
		expect(report.nestedRepositories).toEqual(["vendor/lib/"]);
		expect(report.kept).toBe(true);
		expect(report.changed).toBe(true);
		expect(git(repo.root, "rev-list", "--count", `${handle.base}..cadre/nest`)).toBe("2");
		expect(git(repo.root, "ls-tree", "-r", "--name-only", "cadre/nest").split("\n").sort()).toEqual(["a.txt", "loose.txt"]);
		expect(readFileSync(join(handle.worktreePath, "vendor/lib/x.txt"), "utf8")).toBe("inside a nested repo\n");
	});

	it("never loses work when the child moved the worktree off cadre/<id> (detached HEAD or another branch)", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const detached = handleOf(await createWorktree({ runId: "det", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		git(detached.worktreePath, "checkout", "-q", "--detach");
		writeAt(join(detached.worktreePath, "a.txt"), "written on a detached HEAD\n");
		const detachedReport = await finishWorktree(detached, info);
		expect(detachedReport.error).toBeNull();
		expect(detachedReport.changed).toBe(true);
		// the work is on cadre/<id>, as the report says
		expect(git(repo.root, "show", "cadre/det:a.txt")).toBe("written on a detached HEAD");
		expect(detachedReport.commit).toBe(git(repo.root, "rev-parse", "cadre/det"));

		const diverged = handleOf(await createWorktree({ runId: "div", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		writeAt(join(diverged.worktreePath, "a.txt"), "on cadre/div\n");
		commitAll(diverged.worktreePath, "child's commit on its branch");
		const onBranch = git(diverged.worktreePath, "rev-parse", "HEAD");
		git(diverged.worktreePath, "checkout", "-q", "--detach", diverged.base);
		writeAt(join(diverged.worktreePath, "b.txt"), "elsewhere\n");
		const divergedReport = await finishWorktree(diverged, info);
		// cadre/div keeps the child's commit, and the detached work is kept in the worktree, not deleted
		expect(git(repo.root, "rev-parse", "cadre/div")).toBe(onBranch);
		expect(divergedReport.kept).toBe(true);
		expect(existsSync(diverged.worktreePath)).toBe(true);
		expect(git(diverged.worktreePath, "show", "HEAD:b.txt")).toBe("elsewhere");
		expect(divergedReport.keptBecause).toMatch(/not on cadre\/div/);
	});

	it("says so and prunes git's record when the worktree's directory vanished during the run", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handle = handleOf(await createWorktree({ runId: "gone", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		rmSync(handle.worktreePath, { recursive: true, force: true });
		const report = await finishWorktree(handle, info);
		expect(report.kept).toBe(false);
		expect(report.error).toMatch(/no longer exists/);
		expect(git(repo.root, "worktree", "list", "--porcelain")).not.toContain(handle.worktreePath);
	});

	it("says the files are still there when the child removed its worktree's .git file", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handle = handleOf(await createWorktree({ runId: "nogit", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		writeAt(join(handle.worktreePath, "a.txt"), "child's work\n");
		rmSync(join(handle.worktreePath, ".git"));
		const report = await finishWorktree(handle, info);
		expect(report.kept).toBe(true);
		expect(report.summary).toContain(handle.worktreePath);
		expect(report.error).not.toMatch(/is gone/);
		expect(readFileSync(join(handle.worktreePath, "a.txt"), "utf8")).toBe("child's work\n");
	});

	it("keeps the worktree and names the problem when the commit cannot be made", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handle = handleOf(await createWorktree({ runId: "lock", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback }));
		writeAt(join(handle.worktreePath, "a.txt"), "two\n");
		// a stale index lock makes `git add` fail
		const gitDir = git(handle.worktreePath, "rev-parse", "--absolute-git-dir");
		writeAt(join(gitDir, "index.lock"), "");
		const report = await finishWorktree(handle, info);
		expect(report.error).toMatch(/git add failed/);
		expect(report.kept).toBe(true);
		expect(readFileSync(join(handle.worktreePath, "a.txt"), "utf8")).toBe("two\n");
	});
});

describe("reopenWorktree", () => {
	it("reuses a kept worktree, rebuilds one from cadre/<id>, and starts fresh when neither exists", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\n", "a.txt": "one\n" });
		const options = { runId: "res", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback };
		const first = handleOf(await createWorktree(options));
		writeAt(join(first.worktreePath, "keep.log"), "x");
		writeAt(join(first.worktreePath, "a.txt"), "first run\n");
		const firstReport = await finishWorktree(first, info);
		expect(firstReport.kept).toBe(true);

		const reused = handleOf(await reopenWorktree({ ...options, previous: first }));
		expect(reused.worktreePath).toBe(first.worktreePath);
		expect(reused.createdBranch).toBe(false);
		expect(reused.base).toBe(firstReport.commit);
		rmSync(join(reused.worktreePath, "keep.log"));
		writeAt(join(reused.worktreePath, "a.txt"), "second run\n");
		const second = await finishWorktree(reused, info);
		expect(second.kept).toBe(false);
		expect(git(repo.root, "show", "cadre/res:a.txt")).toBe("second run");
		expect(git(repo.root, "rev-list", "--count", "main..cadre/res")).toBe("2");

		const rebuilt = handleOf(await reopenWorktree({ ...options, previous: first }));
		expect(readFileSync(join(rebuilt.worktreePath, "a.txt"), "utf8")).toBe("second run\n");
		expect(rebuilt.notices.join(" ")).toMatch(/rebuilt from cadre\/res/);
		const third = await finishWorktree(rebuilt, info);
		expect(third.changed).toBe(false);
		expect(third.branch).toBe("cadre/res");
		expect(git(repo.root, "rev-parse", "--verify", "cadre/res")).toBe(second.commit);

		const fresh = handleOf(await reopenWorktree({ ...options, runId: "never-kept" }));
		expect(fresh.createdBranch).toBe(true);
		expect(fresh.base).toBe(git(repo.root, "rev-parse", "HEAD"));
	});
});
