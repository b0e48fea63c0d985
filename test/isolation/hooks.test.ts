/**
 * The isolation hooks the run lifecycle calls: prepare → child cwd in the worktree (or a refusal),
 * finish → commit, cleanup and the escape check in one report.
 */
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import type { RunRecord } from "../../src/runtime/runs.ts";
import { createWorktreeIsolation, WorktreeRefusedError } from "../../src/isolation/worktree-hooks.ts";
import { git, makeRepo, noFallback, writeAt } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

function fakeRun(id: string, isolation: "none" | "worktree", resumeOf: string | null = null): RunRecord {
	return {
		id,
		type: "worker",
		description: "edit files",
		resumeOf,
		createdAt: Date.now(),
		isolation: null,
		config: { isolation } as RunRecord["config"],
	} as RunRecord;
}

describe("createWorktreeIsolation", () => {
	it("moves a worktree run into its worktree, commits its work and reports an escape", async () => {
		const repo = makeRepo({ "a.txt": "one\n", "b.txt": "b\n" });
		const touched = new Set<string>();
		const hooks = createWorktreeIsolation({
			agentDir: repo.agentDir,
			parentCwd: repo.root,
			settings: () => noFallback,
			childCwd: () => repo.root,
			touchedByParent: () => touched,
		});
		expect(await hooks.prepare(fakeRun("plain", "none"))).toEqual({ cwd: null, report: null });

		const run = fakeRun("iso1", "worktree");
		const prepared = await hooks.prepare(run);
		expect(prepared.cwd).not.toBeNull();
		expect(prepared.cwd?.startsWith(join(repo.agentDir, "cadre", "worktrees"))).toBe(true);
		expect(prepared.report).toMatchObject({ isolation: "worktree", branch: "cadre/iso1" });
		run.isolation = prepared.report;
		writeAt(join(prepared.cwd as string, "a.txt"), "child\n");
		writeAt(join(repo.root, "escaped.txt"), "written outside the worktree\n");
		writeAt(join(repo.root, "b.txt"), "the parent's own edit\n");
		touched.add(join(repo.root, "b.txt"));
		const report = await hooks.finish(run, "stopped");
		expect(report).toMatchObject({ isolation: "worktree", branch: "cadre/iso1", committed: true, escapedPaths: ["escaped.txt"] });
		expect(String(report?.summary)).toContain("escaped.txt");
		expect(git(repo.root, "show", "cadre/iso1:a.txt")).toBe("child");
		expect(git(repo.root, "log", "-1", "--format=%b", "cadre/iso1")).toContain("ended stopped");

		// a resume of that run continues on the same branch
		const resumed = fakeRun("iso2", "worktree", "iso1");
		const again = await hooks.prepare(resumed);
		expect(again.report).toMatchObject({ branch: "cadre/iso1" });
		writeAt(join(again.cwd as string, "a.txt"), "child, resumed\n");
		await hooks.finish(resumed, "completed");
		expect(git(repo.root, "show", "cadre/iso1:a.txt")).toBe("child, resumed");
	});

	it("refuses a worktree run outside a repository unless the shared fallback is allowed", async () => {
		const dir = realpathSync(mkdtempSync(join(tmpdir(), "cadre-hooks-")));
		const base = { agentDir: join(dir, "agent"), parentCwd: dir, childCwd: () => dir, touchedByParent: () => new Set<string>() };
		const strict = createWorktreeIsolation({ ...base, settings: () => noFallback });
		await expect(strict.prepare(fakeRun("x1", "worktree"))).rejects.toBeInstanceOf(WorktreeRefusedError);
		const lenient = createWorktreeIsolation({ ...base, settings: () => ({ baseDir: null, allowSharedFallback: true }) });
		const shared = await lenient.prepare(fakeRun("x2", "worktree"));
		expect(shared.cwd).toBe(dir);
		expect(shared.report).toMatchObject({ isolation: "shared-fallback" });
		expect(String(shared.report?.summary)).toMatch(/^isolation: shared-fallback — /);
	});
});
