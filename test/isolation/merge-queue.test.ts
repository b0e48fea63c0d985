/**
 * The merge queue (`cadre worktrees apply --all`, ADR 0115) with real git: finished branches merged
 * in finish order, each merged tree verified in a temporary worktree before the parent's branch
 * moves; a conflict or a failing verify stops the queue with the parent's branch and files as they
 * were; a dirty tree is refused; a dry run changes nothing.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/hosts/cli/main.ts";
import { takeFingerprint } from "../../src/isolation/escape-check.ts";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { runMergeQueue } from "../../src/isolation/merge-queue.ts";
import { listCadreWorktrees } from "../../src/isolation/worktree-admin.ts";
import { createWorktree } from "../../src/isolation/worktree.ts";
import { childRun } from "./support/child.ts";
import { captured } from "./support/io.ts";
import { record } from "../runtime/record.ts";
import { saveRunNow } from "../../src/runtime/run-store.ts";
import { commitAll, git, makeRepo, noFallback, type TestRepo } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

/** Everything that makes up the parent's state: HEAD, branch, index, work tree (untracked too). */
async function parentState(repo: TestRepo) {
	const fp = await takeFingerprint(repo.root, { content: true });
	return { fp, index: git(repo.root, "ls-files", "--stage"), head: git(repo.root, "rev-parse", "HEAD"), branch: git(repo.root, "rev-parse", "--abbrev-ref", "HEAD") };
}

/** A verify command that logs which run it verified and which files the merged tree holds. */
function loggingVerify(repo: TestRepo) {
	const log = join(repo.agentDir, "verify.log");
	return { log, verify: { command: `echo "$CADRE_RUN_ID: $(echo *.txt)" >> '${log}'`, timeoutMs: 30_000 } };
}

describe("runMergeQueue", () => {
	it("merges three branches in finish order, verifying each merged tree before the branch moves", async () => {
		const repo = makeRepo({ "base.txt": "base\n" });
		// finish order differs from id order: the queue follows the finish
		await childRun(repo, "zeta", { "z.txt": "z\n" });
		await childRun(repo, "alpha", { "a.txt": "a\n" });
		repo.write("base.txt", "the parent moved on\n");
		commitAll(repo.root, "parent work");
		await childRun(repo, "mid", { "m.txt": "m\n" });
		const { log, verify } = loggingVerify(repo);

		const dry = await runMergeQueue({ cwd: repo.root, dryRun: true, verify });
		expect(dry.outcome).toBe("dry-run");
		expect(dry.queue.map((q) => q.id)).toEqual(["zeta", "alpha", "mid"]);
		expect(dry.queue[0]?.verify).toEqual({ command: verify.command, source: "settings" });
		expect(existsSync(log)).toBe(false);

		const queued = await runMergeQueue({ cwd: repo.root, verify });
		expect(queued.outcome).toBe("applied");
		expect(queued.ok).toBe(true);
		expect(queued.steps.map((s) => [s.id, s.outcome])).toEqual([
			["zeta", "applied"],
			["alpha", "applied"],
			["mid", "applied"],
		]);
		// each verify saw the merges before it, never one after
		expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["zeta: base.txt z.txt", "alpha: a.txt base.txt z.txt", "mid: a.txt base.txt m.txt z.txt"]);
		expect(queued.steps.every((s) => s.verify?.ok === true && s.verify.exitCode === 0)).toBe(true);
		expect(repo.read("a.txt")).toBe("a\n");
		expect(repo.read("m.txt")).toBe("m\n");
		expect(repo.read("base.txt")).toBe("the parent moved on\n");
		expect(git(repo.root, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
		expect(git(repo.root, "status", "--porcelain")).toBe("");
		const listing = await listCadreWorktrees(repo.root);
		expect(listing.ok && listing.entries.map((e) => e.state)).toEqual(["applied", "applied", "applied"]);
		// the temporary worktree is gone
		expect(git(repo.root, "worktree", "list", "--porcelain").match(/^worktree /gm)?.length).toBe(1);
		expect(readdirSync(process.env.TMPDIR ?? "/tmp").some((name) => name.startsWith("cadre-queue-"))).toBe(false);
		expect((await runMergeQueue({ cwd: repo.root, verify })).outcome).toBe("nothing");
	});

	it("stops at a fourth branch that conflicts: the files named, the parent's branch and files as after the third", async () => {
		const repo = makeRepo({ "shared.txt": "base\n" });
		await childRun(repo, "one", { "shared.txt": "one's version\n" });
		await childRun(repo, "two", { "b.txt": "b\n" });
		await childRun(repo, "three", { "c.txt": "c\n" });
		await childRun(repo, "four", { "shared.txt": "four's version\n", "d.txt": "d\n" });
		const { log, verify } = loggingVerify(repo);
		const queued = await runMergeQueue({ cwd: repo.root, verify });
		expect(queued.outcome).toBe("stopped");
		expect(queued.ok).toBe(false);
		expect(queued.steps.map((s) => [s.id, s.outcome])).toEqual([
			["one", "applied"],
			["two", "applied"],
			["three", "applied"],
			["four", "conflict"],
		]);
		expect(queued.paths).toEqual(["shared.txt"]);
		expect(queued.message).toContain("shared.txt");
		expect(queued.endCommit).toBe(queued.steps[2]?.commit);
		expect(git(repo.root, "rev-parse", "HEAD")).toBe(queued.steps[2]?.commit);
		expect(repo.read("shared.txt")).toBe("one's version\n");
		expect(existsSync(join(repo.root, "d.txt"))).toBe(false);
		expect(git(repo.root, "status", "--porcelain")).toBe("");
		expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(3);
	});

	it("a conflict on the first branch leaves the parent's branch, index and files exactly as they were", async () => {
		const repo = makeRepo({ "a.txt": "base\n" });
		await childRun(repo, "clash", { "a.txt": "child\n" });
		await childRun(repo, "later", { "l.txt": "l\n" });
		repo.write("a.txt", "parent\n");
		commitAll(repo.root, "parent edits a");
		const before = await parentState(repo);
		const queued = await runMergeQueue({ cwd: repo.root });
		expect(queued.steps.map((s) => s.outcome)).toEqual(["conflict"]);
		expect(queued.paths).toEqual(["a.txt"]);
		expect(await parentState(repo)).toEqual(before);
		expect(existsSync(join(repo.root, ".git/MERGE_HEAD"))).toBe(false);
	});

	it("does not apply a merge whose verify fails, and reports the verify's output", async () => {
		const repo = makeRepo({ "a.txt": "base\n" });
		await childRun(repo, "fine", { "f.txt": "f\n" });
		await childRun(repo, "broken", { "bad.txt": "breaks the check\n" });
		await childRun(repo, "after", { "g.txt": "g\n" });
		const verify = { command: "if test -f bad.txt; then echo 'check failed: bad.txt exists' >&2; exit 3; fi", timeoutMs: 30_000 };
		const queued = await runMergeQueue({ cwd: repo.root, verify });
		expect(queued.steps.map((s) => [s.id, s.outcome])).toEqual([
			["fine", "applied"],
			["broken", "verify-failed"],
		]);
		const failed = queued.steps[1];
		expect(failed?.verify).toMatchObject({ exitCode: 3, ok: false, outputTail: "check failed: bad.txt exists" });
		expect(existsSync(join(repo.root, "bad.txt"))).toBe(false);
		expect(existsSync(join(repo.root, "g.txt"))).toBe(false);
		expect(git(repo.root, "rev-parse", "HEAD")).toBe(queued.steps[0]?.commit);
		const listing = await listCadreWorktrees(repo.root);
		expect(listing.ok && listing.entries.filter((e) => !e.applied).map((e) => e.id).sort()).toEqual(["after", "broken"]);
	});

	it("uses a run's own verify when settings have none", async () => {
		const repo = makeRepo({ "a.txt": "base\n" });
		await childRun(repo, "own", { "o.txt": "o\n" });
		const queued = await runMergeQueue({ cwd: repo.root, verifyFor: (id) => (id === "own" ? { command: "exit 9", timeoutMs: 10_000 } : null) });
		expect(queued.queue[0]?.verify).toEqual({ command: "exit 9", source: "run" });
		expect(queued.steps[0]).toMatchObject({ outcome: "verify-failed", verify: { exitCode: 9, ok: false } });
	});

	it("refuses a dirty working tree and skips runs still in progress", async () => {
		const repo = makeRepo({ "a.txt": "base\n" });
		await childRun(repo, "done", { "d.txt": "d\n" });
		const running = await createWorktree({ runId: "running", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
		expect(running.kind).toBe("worktree");
		repo.write("scratch.txt", "untracked\n");
		const before = await parentState(repo);
		const refused = await runMergeQueue({ cwd: repo.root });
		expect(refused.outcome).toBe("refused");
		expect(refused.paths).toEqual(["scratch.txt"]);
		expect(await parentState(repo)).toEqual(before);
		git(repo.root, "add", "scratch.txt");
		commitAll(repo.root, "scratch");
		const queued = await runMergeQueue({ cwd: repo.root });
		expect(queued.steps.map((s) => [s.id, s.outcome])).toEqual([["done", "applied"]]);
		expect(queued.skipped).toEqual([]);
		// a running run's branch holds no work yet: it is not queued at all
		expect(queued.queue.map((q) => q.id)).toEqual(["done"]);
	});
});

describe("cadre worktrees apply --all", () => {
	it("runs the queue with the user's worktree.verify; an untrusted project's is not run, and says why", async () => {
		const repo = makeRepo({ "a.txt": "base\n", ".pi/subagents.json": JSON.stringify({ worktree: { verify: "exit 1" } }) });
		await childRun(repo, "q1", { "q.txt": "q\n" });
		const dry = captured(repo.root);
		expect(await main(["worktrees", "apply", "--all", "--dry-run"], dry)).toBe(0);
		expect(dry.stdout).toMatch(/^1\. cadre\/q1 {2}finished .* verify: none$/m);
		expect(dry.stderr).toMatch(/worktree\.verify in project settings is ignored: the project is not trusted.*--trust-project/);
		const trusted = captured(repo.root);
		expect(await main(["worktrees", "apply", "--all", "--trust-project", "--json"], trusted)).toBe(1);
		const parsed = JSON.parse(trusted.stdout);
		expect(parsed.outcome).toBe("stopped");
		expect(parsed.steps[0].outcome).toBe("verify-failed");
		const run = captured(repo.root);
		expect(await main(["worktrees", "apply", "--all"], run)).toBe(0);
		expect(run.stdout).toMatch(/^applied {2}cadre\/q1 {2}fast-forward to [0-9a-f]{10}/m);
		expect(repo.read("q.txt")).toBe("q\n");
	});
});

describe("cadre worktrees apply --all without settings worktree.verify", () => {
	it("verifies each merge with the run's own verify from its record", async () => {
		const repo = makeRepo({ "a.txt": "base\n" });
		await childRun(repo, "own1", { "o.txt": "o\n" });
		const records = join(repo.agentDir, "cadre", "transcripts");
		const base = record();
		saveRunNow(records, record({ id: "own1", config: { ...base.config, isolation: "worktree", verify: { command: "echo checked-own1; exit 3", timeoutMs: 10_000 } } }));
		const io = { ...captured(repo.root), env: { ...process.env, PI_CODING_AGENT_DIR: repo.agentDir } };
		const dry = captured(repo.root);
		Object.assign(dry, { env: io.env });
		expect(await main(["worktrees", "apply", "--all", "--dry-run"], dry)).toBe(0);
		expect(dry.stdout).toMatch(/^1\. cadre\/own1 .* verify: `echo checked-own1; exit 3` \(run\)$/m);
		const run = captured(repo.root);
		Object.assign(run, { env: io.env });
		expect(await main(["worktrees", "apply", "--all", "--json"], run)).toBe(1);
		const parsed = JSON.parse(run.stdout);
		expect(parsed.queue[0].verify).toEqual({ command: "echo checked-own1; exit 3", source: "run" });
		expect(parsed.steps[0]).toMatchObject({ outcome: "verify-failed", verify: { exitCode: 3, ok: false } });
		expect(parsed.steps[0].verify.outputTail).toContain("checked-own1");
		expect(existsSync(join(repo.root, "o.txt"))).toBe(false);
	});
});
