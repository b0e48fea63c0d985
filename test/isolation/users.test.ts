/**
 * Worktrees are never removed under a live run (issue 23, ADR 0116): a run of another process
 * working inside a worktree keeps it through `clean`, a run's own finish (the nested-child case),
 * recovery and the pool's clean; once that process is gone, or its run ended, the worktree goes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { cleanCadreWorktrees } from "../../src/isolation/worktree-admin.ts";
import { createWorktree } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { liveUsers, registerUse } from "../../src/isolation/worktree-users.ts";
import { nodeBinary } from "../support/cli.ts";
import { childRun } from "./support/child.ts";
import { git, makeRepo, pooled, type TestRepo } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

const liveUser = join(dirname(fileURLToPath(import.meta.url)), "support", "live-user.ts");
const started: ChildProcess[] = [];
afterEach(() => {
	for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Starts a second process whose run works in `dir`; resolves once its use record is written. */
async function startUser(repo: TestRepo, runId: string, dir: string): Promise<ChildProcess> {
	const child = spawn(nodeBinary(), [liveUser, repo.root, repo.agentDir, runId, dir], { stdio: ["ignore", "pipe", "pipe"] });
	started.push(child);
	let err = "";
	child.stderr?.on("data", (chunk) => (err += chunk));
	await new Promise<void>((resolve, reject) => {
		child.stdout?.on("data", (chunk) => String(chunk).includes("ready") && resolve());
		child.on("exit", (code) => reject(new Error(`the second process exited (${code}): ${err}`)));
	});
	return child;
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
	const exited = new Promise((resolve) => child.once("exit", resolve));
	child.kill(signal);
	await exited;
}

/** A finished run's worktree with nothing left to keep, which `clean` removes: kept for an ignored file, then the file deleted. */
async function keptWorktree(repo: TestRepo, id: string): Promise<string> {
	const report = await childRun(repo, id, { "work.txt": "work\n", "build.log": "log\n" });
	expect(report.kept).toBe(true);
	rmSync(join(report.worktreePath, "build.log"));
	return report.worktreePath;
}

describe("a worktree a live run still uses", () => {
	it("`clean` while a run is live in another process leaves that worktree; after that process is gone it is removed", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\n", "a.txt": "a\n" });
		const path = await keptWorktree(repo, "kept1");
		mkdirSync(join(path, "pkg"));
		const other = await startUser(repo, "nested-run", join(path, "pkg"));
		const cleaned = await cleanCadreWorktrees(repo.root);
		expect(cleaned.ok && cleaned.kept).toEqual([{ id: "kept1", path, reason: `a run of another process still works in it: nested-run (process ${other.pid})` }]);
		expect(existsSync(path)).toBe(true);
		await stop(other, "SIGKILL");
		const again = await cleanCadreWorktrees(repo.root);
		expect(again.ok && again.removed).toEqual([{ id: "kept1", path }]);
		expect(existsSync(path)).toBe(false);
	});

	it("a run that ends normally deletes its use record: the worktree is free at once", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\n", "a.txt": "a\n" });
		const path = await keptWorktree(repo, "kept2");
		const other = await startUser(repo, "short-run", path);
		const common = join(repo.root, ".git");
		expect(liveUsers(common, path).map((u) => u.runId)).toEqual(["short-run"]);
		await stop(other, "SIGTERM");
		expect(liveUsers(common, path)).toEqual([]);
		expect((await cleanCadreWorktrees(repo.root)).ok && existsSync(path)).toBe(false);
	});

	it("a run's finish keeps its worktree while a nested run of another process works inside it", async () => {
		const repo = makeRepo({ "a.txt": "a\n" });
		const outcome = await createWorktree({ runId: "outer", parentCwd: repo.root, agentDir: repo.agentDir, settings: pooled(2) });
		if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
		const wt = outcome.handle.worktreePath;
		const other = await startUser(repo, "inner", wt);
		const report = await finishWorktree(outcome.handle, { type: "worker", description: "outer", status: "completed" });
		expect(report.kept).toBe(true);
		expect(report.pooled).toBe(false);
		expect(report.keptBecause).toBe(`a run of another process still works in it: inner (process ${other.pid})`);
		expect(existsSync(wt)).toBe(true);
		await stop(other, "SIGKILL");
		const cleaned = await cleanCadreWorktrees(repo.root);
		expect(cleaned.ok && cleaned.removed.map((r) => r.id)).toEqual(["outer"]);
	});

	it("the pool's clean keeps a pooled worktree a live run works in", async () => {
		const repo = makeRepo({ "a.txt": "a\n" });
		await childRun(repo, "filler", {});
		const outcome = await createWorktree({ runId: "p1", parentCwd: repo.root, agentDir: repo.agentDir, settings: pooled(1) });
		if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
		await finishWorktree(outcome.handle, { type: "worker", description: "p1", status: "completed" });
		const listed = git(repo.root, "worktree", "list", "--porcelain").split("\n").filter((l) => l.startsWith("worktree ") && l.includes("/.pool/"));
		expect(listed.length).toBeGreaterThan(0);
		const poolPath = (listed[0] as string).slice("worktree ".length);
		const other = await startUser(repo, "in-pool", poolPath);
		const cleaned = await cleanCadreWorktrees(repo.root);
		expect(cleaned.ok && cleaned.pool.kept.find((k) => k.path === poolPath)?.reason).toContain("in-pool");
		expect(existsSync(poolPath)).toBe(true);
		await stop(other, "SIGKILL");
	});

	it("a run in the repository's main working tree writes no use record (cadre never removes it); one in a linked worktree does", async () => {
		const repo = makeRepo({ "a.txt": "a\n" });
		const records = () => (existsSync(join(repo.root, ".git", "cadre-users")) ? readdirSync(join(repo.root, ".git", "cadre-users")) : []);
		mkdirSync(join(repo.root, "sub"));
		const release = await registerUse("main-run", [repo.root, join(repo.root, "sub")]);
		expect(records()).toEqual([]);
		release();
		const outcome = await createWorktree({ runId: "linked", parentCwd: repo.root, agentDir: repo.agentDir, settings: pooled(0) });
		if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
		const inLinked = await registerUse("linked-run", [outcome.handle.worktreePath, repo.root]);
		expect(records()).toEqual([`linked-run-${process.pid}.json`]);
		expect(liveUsers(join(repo.root, ".git"), outcome.handle.worktreePath).map((u) => u.runId)).toEqual(["linked-run"]);
		inLinked();
		expect(records()).toEqual([]);
	});
});
