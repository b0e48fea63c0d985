/**
 * When a run that is not isolated records its use of a directory (ADR 0116, issue 28): the lookup
 * and the write come after the spawn's synchronous burst, so the child's first request does not
 * wait for them; the child's first tool call does (`IsolationHooks.ready`), as do the receipt's
 * look and the run's end.
 */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { createWorktree } from "../../src/isolation/worktree.ts";
import { createWorktreeIsolation } from "../../src/isolation/worktree-hooks.ts";
import { createRunRegistry, type IsolationHooks, type RunRecord } from "../../src/runtime/runs.ts";
import { scriptedChild, scriptedPlan } from "../runtime/support/scripted-child.ts";
import { makeRepo, pooled } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

describe("a run's use record", () => {
	it("is written after prepare returns, before `ready` settles, and deleted at the end", async () => {
		const repo = makeRepo({ "a.txt": "a\n" });
		const outcome = await createWorktree({ runId: "kept", parentCwd: repo.root, agentDir: repo.agentDir, settings: pooled(0) });
		if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
		const dir = outcome.handle.worktreePath;
		const users = join(repo.root, ".git", "cadre-users");
		const records = () => (existsSync(users) ? readdirSync(users) : []);
		const hooks = createWorktreeIsolation({
			agentDir: repo.agentDir,
			parentCwd: repo.root,
			settings: () => pooled(0),
			childCwd: () => dir,
			touchedByParent: () => new Set(),
		});
		const run = { id: "in-kept", config: { isolation: "none" }, resumeOf: null, createdAt: Date.now() } as unknown as RunRecord;
		await hooks.prepare(run);
		// The spawn went on without it: nothing looked up or written yet.
		expect(records()).toEqual([]);
		await hooks.ready?.(run);
		expect(records()).toEqual([`in-kept-${process.pid}.json`]);
		expect(await hooks.repoRoot?.(run, dir)).toBe(dir);
		await hooks.finish(run, "completed");
		expect(records()).toEqual([]);
	});

	it("is written at once when the run ends before the event loop came round (its end does not wait a turn)", async () => {
		// Outside a repository, once known, the lookup is synchronous: a child whose whole life ran in
		// one burst (a warm faux fan-out) ends before the deferred write; its end writes it itself.
		const dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "not-a-repo-"));
		const hooks = createWorktreeIsolation({ agentDir: dir, parentCwd: dir, settings: () => pooled(0), childCwd: () => dir, touchedByParent: () => new Set() });
		const runOf = (id: string) => ({ id, config: { isolation: "none" }, resumeOf: null, createdAt: Date.now() }) as unknown as RunRecord;
		const first = runOf("warm");
		await hooks.prepare(first);
		await hooks.ready?.(first);
		await hooks.finish(first, "completed");
		let turned = false;
		setImmediate(() => (turned = true));
		const run = runOf("quick");
		await hooks.prepare(run);
		await hooks.finish(run, "completed");
		expect(turned).toBe(false);
	});

	it("holds the child's first tool call until isolation is ready", async () => {
		let open: () => void = () => {};
		const gate = new Promise<void>((resolve) => (open = resolve));
		const isolation: IsolationHooks = { prepare: async () => ({ cwd: null, report: null }), finish: async (run) => run.isolation, ready: () => gate };
		let wait: ((toolName: string) => Promise<void> | null) | null = null;
		let ran: () => void = () => {};
		const child = { ...scriptedChild("done"), beforeTools: (set: typeof wait) => void (wait = set), run: () => new Promise<void>((resolve) => (ran = resolve)) };
		const registry = createRunRegistry({ maxConcurrent: 1, emit: () => {} , isolation });
		const { done } = await registry.spawn(scriptedPlan(child), { background: false });
		await new Promise((resolve) => setImmediate(resolve));
		expect(wait).not.toBeNull();
		let held = true;
		const call = (wait as unknown as (toolName: string) => Promise<void> | null)("read");
		expect(call).toBeInstanceOf(Promise);
		void call?.then(() => (held = false));
		await new Promise((resolve) => setImmediate(resolve));
		expect(held).toBe(true);
		open();
		await call;
		expect(held).toBe(false);
		ran();
		expect((await done).state).toBe("completed");
	});
});
