/**
 * Recovery after a parent crash (issue 9 item 12): a run's worktree lock names its owner (pid,
 * process start time, host); a worktree whose owner is gone is `interrupted`, and `clean` (or the
 * next pi session start) commits its work to `cadre/<id>` with a message that says so, then removes
 * it. A live owner's worktree stays in use; a lock that names no cadre owner is left alone.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { subagentsCommand } from "../../src/hosts/pi/commands.ts";
import { main } from "../../src/hosts/cli/main.ts";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { formatOwner } from "../../src/runtime/owner.ts";
import type { RunRegistry } from "../../src/runtime/runs.ts";
import { createWorktree, reopenWorktree, type WorktreeHandle } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { applyCadreWorktree, cleanCadreWorktrees, listCadreWorktrees } from "../../src/isolation/worktree-admin.ts";
import { recoverInterruptedWorktrees } from "../../src/isolation/worktree-recovery.ts";
import { nodeBinary } from "../support/cli.ts";
import { captured } from "./support/io.ts";
import { git, makeRepo, noFallback, type TestRepo, writeAt } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

const crashOwner = join(dirname(fileURLToPath(import.meta.url)), "support", "crash-owner.ts");
const started: ChildProcess[] = [];
afterEach(() => {
	for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Starts the stand-in parent; resolves once its worktree exists and the file is written. */
async function startOwner(repo: TestRepo, runId: string, file: string, text: string): Promise<{ child: ChildProcess; worktreePath: string }> {
	const child = spawn(nodeBinary(), [crashOwner, repo.root, repo.agentDir, runId, file, text], { stdio: ["ignore", "pipe", "pipe"] });
	started.push(child);
	let out = "";
	let err = "";
	child.stderr?.on("data", (chunk) => (err += chunk));
	const line = await new Promise<string>((resolve, reject) => {
		child.stdout?.on("data", (chunk) => {
			out += chunk;
			if (out.includes("\n")) resolve(out.split("\n")[0] as string);
		});
		child.on("exit", (code) => reject(new Error(`the owner exited (${code}) before creating its worktree: ${err}`)));
	});
	return { child, worktreePath: (JSON.parse(line) as { worktreePath: string }).worktreePath };
}

async function kill(child: ChildProcess): Promise<void> {
	const exited = new Promise((resolve) => child.once("exit", resolve));
	child.kill("SIGKILL");
	await exited;
}

async function cli(repo: TestRepo, ...args: string[]): Promise<string> {
	const io = captured(repo.root);
	expect(await main(["worktrees", ...args], io)).toBe(0);
	return io.stdout;
}

async function entryOf(repo: TestRepo, id: string) {
	const listing = await listCadreWorktrees(repo.root);
	if (!listing.ok) throw new Error(listing.message);
	const entry = listing.entries.find((e) => e.id === id);
	if (!entry) throw new Error(`no entry ${id}`);
	return entry;
}

async function worktreeOf(repo: TestRepo, runId: string): Promise<WorktreeHandle> {
	const outcome = await createWorktree({ runId, parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
	if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
	return outcome.handle;
}

/**
 * Makes a worktree look as a crashed parent left it: locked by an owner that is gone (this very
 * pid with another start time — what a reused process id looks like).
 */
function interrupt(path: string, root: string): void {
	git(root, "worktree", "unlock", path);
	git(root, "worktree", "lock", "--reason", formatOwner({ pid: process.pid, start: "1", host: hostname() }), path);
}

describe("a parent killed mid-run (SIGKILL)", () => {
	it("leaves an interrupted worktree that clean commits to cadre/<id> with its file, then removes", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const { child, worktreePath } = await startOwner(repo, "crashed", "crash.txt", "written before the crash\n");

		// while the owner lives, its worktree is in use: listed so, never cleaned
		const live = await entryOf(repo, "crashed");
		expect(live).toMatchObject({ locked: true, interrupted: false, state: "dirty", uncommitted: ["crash.txt"] });
		expect(live.owner?.pid).toBe(child.pid);
		const whileAlive = await cleanCadreWorktrees(repo.root);
		if (!whileAlive.ok) throw new Error(whileAlive.message);
		expect(whileAlive.recovered).toEqual([]);
		expect(whileAlive.kept.map((k) => [k.id, k.reason])).toEqual([["crashed", expect.stringContaining("a run is still using it")]]);
		expect(existsSync(join(worktreePath, "crash.txt"))).toBe(true);

		await kill(child);

		const dead = await entryOf(repo, "crashed");
		expect(dead).toMatchObject({ locked: true, interrupted: true, state: "dirty", applied: false, hasWork: false });
		const table = await cli(repo, "list");
		expect(table).toMatch(/^crashed\s+uncommitted \(1\), interrupted\s+no work\s+/m);
		expect(table).not.toContain("in use");
		const json = JSON.parse(await cli(repo, "list", "--json"));
		expect(json.entries[0]).toMatchObject({ id: "crashed", interrupted: true, applied: false, hasWork: false });

		// apply says what happened and what to do
		const apply = await applyCadreWorktree({ cwd: repo.root, id: "crashed" });
		expect(apply.outcome).toBe("refused");
		expect(apply.message).toContain("interrupted");
		expect(apply.hint).toContain("cadre worktrees clean");

		const cleaned = await cli(repo, "clean");
		expect(cleaned).toMatch(/^recovered\s+crashed\s+.*cadre\/crashed/m);
		expect(existsSync(worktreePath)).toBe(false);
		expect(git(repo.root, "worktree", "list", "--porcelain")).not.toContain(worktreePath);
		expect(git(repo.root, "show", "cadre/crashed:crash.txt")).toBe("written before the crash");
		expect(git(repo.root, "log", "-1", "--format=%B", "cadre/crashed")).toMatch(/interrupted/);
		expect(git(repo.root, "log", "-1", "--format=%an <%ae>", "cadre/crashed")).toBe("Repo Owner <owner@example.test>");
		expect(repo.read("a.txt")).toBe("one\n");

		// afterwards it is an ordinary unapplied branch holding the work
		const after = await entryOf(repo, "crashed");
		expect(after).toMatchObject({ state: "unapplied", hasWork: true, applied: false, worktreePath: null });
		expect(await cli(repo, "list")).toMatch(/^crashed\s+not applied\s+no\s+/m);
	});
});

describe("owners in worktree locks", () => {
	it("records this process as the lock's owner", async () => {
		const repo = makeRepo();
		const handle = await worktreeOf(repo, "mine");
		const porcelain = git(repo.root, "worktree", "list", "--porcelain");
		expect(porcelain).toContain(`locked cadre-owner pid=${process.pid} `);
		expect((await entryOf(repo, "mine")).owner).toMatchObject({ pid: process.pid, host: hostname() });
		await finishWorktree(handle, { type: "worker", description: "mine", status: "completed" });
	});

	it("keeps a live owner's worktree in use: listed so, not recovered, not cleaned", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handle = await worktreeOf(repo, "alive");
		writeAt(join(handle.worktreePath, "a.txt"), "in progress\n");
		expect(await cli(repo, "list")).toMatch(/^alive\s+uncommitted \(1\), in use\s+no work\s+/m);
		expect(await recoverInterruptedWorktrees(repo.root)).toEqual([]);
		const cleaned = await cleanCadreWorktrees(repo.root);
		if (!cleaned.ok) throw new Error(cleaned.message);
		expect(cleaned.kept.map((k) => k.id)).toEqual(["alive"]);
		expect(git(repo.root, "log", "-1", "--format=%s", "cadre/alive")).toBe("initial");
		const report = await finishWorktree(handle, { type: "worker", description: "alive run", status: "completed" });
		expect(report.error).toBeNull();
		expect(git(repo.root, "show", "cadre/alive:a.txt")).toBe("in progress");
	});

	it("treats a lock that names no cadre owner (hand-made, or from an older cadre) as in use", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const usb = await worktreeOf(repo, "usb");
		const plain = await worktreeOf(repo, "plain");
		git(repo.root, "worktree", "unlock", usb.worktreePath);
		git(repo.root, "worktree", "lock", "--reason", "on a usb disk", usb.worktreePath);
		git(repo.root, "worktree", "unlock", plain.worktreePath);
		git(repo.root, "worktree", "lock", plain.worktreePath);
		writeAt(join(usb.worktreePath, "a.txt"), "usb\n");
		expect(await entryOf(repo, "usb")).toMatchObject({ locked: true, interrupted: false, owner: null });
		const cleaned = await cleanCadreWorktrees(repo.root);
		if (!cleaned.ok) throw new Error(cleaned.message);
		expect(cleaned.recovered).toEqual([]);
		expect(cleaned.kept.map((k) => k.id).sort()).toEqual(["plain", "usb"]);
		expect(existsSync(join(usb.worktreePath, "a.txt"))).toBe(true);
	});

	it("a resumed run takes an interrupted worktree's lock over, so no recovery commits it from under the child", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const first = await worktreeOf(repo, "again");
		writeAt(join(first.worktreePath, "a.txt"), "first run\n");
		interrupt(first.worktreePath, repo.root);
		expect((await entryOf(repo, "again")).interrupted).toBe(true);
		const reopened = await reopenWorktree({ runId: "again", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback, previous: first });
		if (reopened.kind !== "worktree") throw new Error(JSON.stringify(reopened));
		expect(reopened.handle.worktreePath).toBe(first.worktreePath);
		const entry = await entryOf(repo, "again");
		expect(entry).toMatchObject({ locked: true, interrupted: false });
		expect(entry.owner?.pid).toBe(process.pid);
		expect(await recoverInterruptedWorktrees(repo.root)).toEqual([]);
		await finishWorktree(reopened.handle, { type: "worker", description: "again", status: "completed" });
		expect(git(repo.root, "show", "cadre/again:a.txt")).toBe("first run");
	});

	it("still locks the worktree when git cannot take a --reason (older git): as in use", async () => {
		const repo = makeRepo();
		const bin = mkdtempSync(join(tmpdir(), "cadre-oldgit-"));
		const fake = join(bin, "git");
		writeFileSync(
			fake,
			'#!/bin/sh\nif [ "$1" = worktree ] && [ "$2" = add ]; then for a in "$@"; do if [ "$a" = --reason ]; then echo "error: unknown option \\`reason\'" >&2; exit 129; fi; done; fi\nexec git "$@"\n',
		);
		chmodSync(fake, 0o755);
		process.env.CADRE_GIT = fake;
		try {
			const handle = await worktreeOf(repo, "oldgit");
			expect(existsSync(handle.worktreePath)).toBe(true);
		} finally {
			delete process.env.CADRE_GIT;
		}
		expect(await entryOf(repo, "oldgit")).toMatchObject({ locked: true, interrupted: false, owner: null });
	});
});

describe("recovering interrupted worktrees", () => {
	it("commits what it can and keeps the worktree for ignored files, saying why", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\n", "a.txt": "one\n" });
		const handle = await worktreeOf(repo, "withlog");
		writeAt(join(handle.worktreePath, "a.txt"), "changed\n");
		writeAt(join(handle.worktreePath, "debug.log"), "ignored\n");
		interrupt(handle.worktreePath, repo.root);
		const recovered = await recoverInterruptedWorktrees(repo.root);
		expect(recovered).toHaveLength(1);
		expect(recovered[0]).toMatchObject({ id: "withlog", committed: true, removed: false, branch: "cadre/withlog" });
		expect(recovered[0]?.keptBecause).toContain("debug.log");
		expect(git(repo.root, "show", "cadre/withlog:a.txt")).toBe("changed");
		expect(existsSync(join(handle.worktreePath, "debug.log"))).toBe(true);
		// no longer locked: an ordinary kept worktree now
		expect(await entryOf(repo, "withlog")).toMatchObject({ locked: false, interrupted: false, state: "kept", ignored: ["debug.log"] });
	});

	it("is what /subagents worktrees list and clean show and do in pi", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handle = await worktreeOf(repo, "pi-run");
		writeAt(join(handle.worktreePath, "a.txt"), "from the child\n");
		interrupt(handle.worktreePath, repo.root);
		const context = { registry: {} as RunRegistry, explain: () => ({}) as never, cwd: repo.root };
		expect(await subagentsCommand("worktrees list", context)).toMatch(/^pi-run\s+uncommitted \(1\), interrupted\s+no work/m);
		expect(await subagentsCommand("worktrees clean", context)).toMatch(/^recovered\s+pi-run\s+.*committed its work to cadre\/pi-run/m);
		expect(git(repo.root, "show", "cadre/pi-run:a.txt")).toBe("from the child");
		expect(existsSync(handle.worktreePath)).toBe(false);
	});

	it("keeps an interrupted worktree it cannot commit, says why, and tries again next time", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handle = await worktreeOf(repo, "stuck");
		writeAt(join(handle.worktreePath, "a.txt"), "half done\n");
		interrupt(handle.worktreePath, repo.root);
		// the killed parent's child was in the middle of a git command: a stale index lock
		const indexLock = join(git(handle.worktreePath, "rev-parse", "--absolute-git-dir"), "index.lock");
		writeFileSync(indexLock, "");
		const failed = await recoverInterruptedWorktrees(repo.root);
		expect(failed).toEqual([expect.objectContaining({ id: "stuck", committed: false, removed: false })]);
		expect(failed[0]?.error).toContain("index.lock");
		expect(readFileSync(join(handle.worktreePath, "a.txt"), "utf8")).toBe("half done\n");
		expect(await entryOf(repo, "stuck")).toMatchObject({ locked: true, interrupted: true });
		rmSync(indexLock);
		const retried = await recoverInterruptedWorktrees(repo.root);
		expect(retried).toEqual([expect.objectContaining({ id: "stuck", committed: true, removed: true, error: null })]);
		expect(git(repo.root, "show", "cadre/stuck:a.txt")).toBe("half done");
	});

	it("removes an interrupted worktree with nothing in it, and its empty branch", async () => {
		const repo = makeRepo();
		const handle = await worktreeOf(repo, "idle");
		interrupt(handle.worktreePath, repo.root);
		const recovered = await recoverInterruptedWorktrees(repo.root);
		expect(recovered).toEqual([expect.objectContaining({ id: "idle", committed: false, removed: true, branch: null })]);
		expect(existsSync(handle.worktreePath)).toBe(false);
		expect(git(repo.root, "branch", "--list", "cadre/idle")).toBe("");
	});

	it("recovers each worktree once when two recoveries race", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handles = await Promise.all(["r1", "r2", "r3"].map((id) => worktreeOf(repo, id)));
		for (const handle of handles) {
			writeAt(join(handle.worktreePath, `${handle.runId}.txt`), `${handle.runId}\n`);
			interrupt(handle.worktreePath, repo.root);
		}
		const results = await Promise.all([recoverInterruptedWorktrees(repo.root), recoverInterruptedWorktrees(repo.root)]);
		const recovered = results.flat();
		expect(recovered.map((r) => r.id).sort()).toEqual(["r1", "r2", "r3"]);
		expect(recovered.every((r) => r.error === null && r.removed)).toBe(true);
		for (const id of ["r1", "r2", "r3"]) {
			expect(git(repo.root, "show", `cadre/${id}:${id}.txt`)).toBe(id);
			expect(git(repo.root, "rev-list", "--count", `main..cadre/${id}`)).toBe("1");
		}
	});
});

describe("applied", () => {
	it("is never said of a branch that holds no work: a kept worktree left at its base", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\n", "a.txt": "one\n" });
		const handle = await worktreeOf(repo, "nowork");
		writeAt(join(handle.worktreePath, "only.log"), "ignored\n");
		const report = await finishWorktree(handle, { type: "worker", description: "no work", status: "completed" });
		expect(report.kept).toBe(true);
		expect(report.changed).toBe(false);
		expect(await entryOf(repo, "nowork")).toMatchObject({ applied: false, hasWork: false, base: handle.base, state: "kept" });
		expect(await cli(repo, "list")).toMatch(/^nowork\s+kept \(1 ignored\)\s+no work\s+/m);
	});

	it("is said of a branch with work once it is merged", async () => {
		const repo = makeRepo({ "a.txt": "one\n" });
		const handle = await worktreeOf(repo, "work");
		writeAt(join(handle.worktreePath, "a.txt"), "two\n");
		await finishWorktree(handle, { type: "worker", description: "work", status: "completed" });
		expect(await entryOf(repo, "work")).toMatchObject({ applied: false, hasWork: true, state: "unapplied" });
		await applyCadreWorktree({ cwd: repo.root, id: "work" });
		expect(await entryOf(repo, "work")).toMatchObject({ applied: true, hasWork: true, state: "applied" });
		expect(await cli(repo, "list")).toMatch(/^work\s+applied\s+yes\s+/m);
	});
});
