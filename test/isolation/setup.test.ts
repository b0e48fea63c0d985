/**
 * Worktree setup with real git (ADR 0086): `worktree.include` copies ignored paths into the
 * worktree so that a child's write never reaches the parent's copy, a symlinked entry says so and
 * is watched by the escape check, and `worktree.setup` runs before the child — its failure refuses
 * the spawn and leaves nothing behind.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { Settings } from "../../src/files/types.ts";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { createWorktree, type IsolationOutcome, type WorktreeHandle, worktreeRepoDir } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { createWorktreeIsolation } from "../../src/isolation/worktree-hooks.ts";
import type { RunRecord } from "../../src/runtime/runs.ts";
import { commitAll, git, makeRepo, noFallback, type TestRepo, writeAt } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

const done = { type: "worker", description: "setup test", status: "completed" } as const;

function withSetup(extra: Partial<Settings["worktree"]>): Settings["worktree"] {
	return { ...noFallback, ...extra };
}

function create(repo: TestRepo, runId: string, settings: Settings["worktree"]): Promise<IsolationOutcome> {
	return createWorktree({ runId, parentCwd: repo.root, agentDir: repo.agentDir, settings });
}

async function handleOf(repo: TestRepo, runId: string, settings: Settings["worktree"]): Promise<WorktreeHandle> {
	const outcome = await create(repo, runId, settings);
	if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
	return outcome.handle;
}

function jsRepo(): TestRepo {
	const repo = makeRepo({ ".gitignore": "node_modules/\n.env\n", "index.js": "require('dep');\n" });
	repo.write("node_modules/dep/index.js", "module.exports = 'parent';\n");
	repo.write("node_modules/.bin/tool", "#!/bin/sh\n");
	repo.write(".env", "TOKEN=parent\n");
	return repo;
}

/** Nothing of a run is left: no worktree directory, no git record, no branch. */
function nothingLeft(repo: TestRepo, runId: string): void {
	expect(existsSync(join(worktreeRepoDir(repo.root, repo.agentDir, null), runId))).toBe(false);
	expect(git(repo.root, "worktree", "list", "--porcelain").match(/^worktree /gm)?.length).toBe(1);
	expect(git(repo.root, "for-each-ref", "refs/heads/cadre/")).toBe("");
}

describe("worktree.include", () => {
	it("copies ignored paths; a child editing an included file does not change the parent's copy, and keeps its worktree", async () => {
		const repo = jsRepo();
		const settings = withSetup({ include: [{ path: "node_modules", mode: "copy" }, { path: ".env", mode: "copy" }, { path: "absent", mode: "copy" }] });
		const handle = await handleOf(repo, "inc", settings);
		const copy = join(handle.worktreePath, "node_modules/dep/index.js");
		const parent = join(repo.root, "node_modules/dep/index.js");
		expect(readFileSync(copy, "utf8")).toBe("module.exports = 'parent';\n");
		expect(readFileSync(join(handle.worktreePath, ".env"), "utf8")).toBe("TOKEN=parent\n");
		expect(statSync(copy).ino).not.toBe(statSync(parent).ino);
		expect(handle.setupReport?.include.map((i) => [i.path, i.present, i.method === "copy" || i.method === "reflink"])).toEqual([
			["node_modules", true, true],
			[".env", true, true],
			["absent", false, false],
		]);
		expect(handle.notices.join(" ")).toMatch(/Worktree setup: node_modules copied/);

		writeAt(copy, "module.exports = 'patched by the child';\n");
		expect(readFileSync(parent, "utf8")).toBe("module.exports = 'parent';\n");
		const report = await finishWorktree(handle, done);
		expect(report).toMatchObject({ kept: true, changedSetupFiles: ["node_modules/dep/index.js"], ignoredFiles: [] });
		expect(report.summary).toContain("that worktree setup made");
		expect(readFileSync(copy, "utf8")).toBe("module.exports = 'patched by the child';\n");
	});

	it("removes a worktree whose included files the child left alone, though they are ignored files", async () => {
		const repo = jsRepo();
		const handle = await handleOf(repo, "alone", withSetup({ include: [{ path: "node_modules", mode: "copy" }] }));
		writeAt(join(handle.worktreePath, "index.js"), "require('dep'); // edited\n");
		const report = await finishWorktree(handle, done);
		expect(report).toMatchObject({ committed: true, kept: false, ignoredFiles: [], changedSetupFiles: [] });
		expect(git(repo.root, "show", "--stat", "--format=", "cadre/alone")).not.toContain("node_modules");
	});

	it("refuses to include a path the commit tracks", async () => {
		const repo = jsRepo();
		const outcome = await create(repo, "tracked", withSetup({ include: [{ path: "index.js", mode: "copy" }] }));
		expect(outcome).toMatchObject({ kind: "refused", failure: { code: "setup-failed" } });
		expect(outcome.kind === "refused" && outcome.failure.message).toContain("index.js is part of the commit");
		nothingLeft(repo, "tracked");
	});

	it("symlinks an entry only when told so, says so, and the escape check sees a write through it", async () => {
		const repo = jsRepo();
		const settings = withSetup({ include: [{ path: "node_modules", mode: "symlink" }] });
		// `node_modules/` ignores directories only: the symlink would be committed, so the spawn is refused
		const unignored = await create(repo, "unignored", settings);
		expect(unignored.kind === "refused" && unignored.failure.message).toContain("git does not ignore a symlink there");
		nothingLeft(repo, "unignored");
		repo.write(".gitignore", "node_modules\n.env\n");
		commitAll(repo.root, "ignore node_modules links too");
		const hooks = createWorktreeIsolation({
			agentDir: repo.agentDir,
			parentCwd: repo.root,
			settings: () => settings,
			childCwd: () => repo.root,
			touchedByParent: () => new Set(),
		});
		const run = { id: "linked", type: "worker", description: "linked", resumeOf: null, createdAt: Date.now(), isolation: null, config: { isolation: "worktree" } } as unknown as RunRecord;
		const prepared = await hooks.prepare(run);
		expect(String(prepared.report?.summary)).toContain("node_modules symlinked to the parent's copy — a write there changes the parent's files");
		writeAt(join(prepared.cwd as string, "node_modules/dep/index.js"), "module.exports = 'through the link';\n");
		expect(repo.read("node_modules/dep/index.js")).toBe("module.exports = 'through the link';\n");
		const report = await hooks.finish(run, "completed");
		expect(report?.escapedPaths).toEqual(["node_modules/dep/index.js"]);
		// removing the worktree removed the link, never what it points at
		expect(report).toMatchObject({ kept: false });
		expect(repo.read("node_modules/.bin/tool")).toBe("#!/bin/sh\n");
	});
});

describe("worktree.setup", () => {
	it("runs the command in the worktree before the child starts", async () => {
		const repo = jsRepo();
		const handle = await handleOf(repo, "gen", withSetup({ setup: { command: 'mkdir -p node_modules && echo "$CADRE_RUN_ID" > node_modules/generated.txt', timeoutMs: 30_000 } }));
		expect(readFileSync(join(handle.worktreePath, "node_modules/generated.txt"), "utf8")).toBe("gen\n");
		expect(handle.setupReport?.command).toMatchObject({ command: expect.stringContaining("mkdir") });
		// what setup made is not the child's: an unchanged output does not keep the worktree
		expect(await finishWorktree(handle, done)).toMatchObject({ kept: false, changed: false });
	});

	it("refuses the spawn with the command's output when it fails, and leaves nothing behind", async () => {
		const repo = jsRepo();
		const outcome = await create(repo, "broken", withSetup({ setup: { command: "echo 'codegen: schema.json not found' >&2; exit 3", timeoutMs: 30_000 } }));
		expect(outcome).toMatchObject({ kind: "refused", failure: { code: "setup-failed" } });
		if (outcome.kind !== "refused") throw new Error(outcome.kind);
		expect(outcome.failure.message).toContain("failed with exit code 3");
		expect(outcome.failure.message).toContain("codegen: schema.json not found");
		nothingLeft(repo, "broken");
	});

	it("refuses the spawn when the command outlives its timeout, or leaves files git would commit", async () => {
		const repo = jsRepo();
		const slow = await create(repo, "slow", withSetup({ setup: { command: "sleep 30", timeoutMs: 300 } }));
		expect(slow.kind === "refused" && slow.failure.message).toContain("did not finish within");
		nothingLeft(repo, "slow");
		const dirty = await create(repo, "dirty", withSetup({ setup: { command: "echo changed > index.js", timeoutMs: 30_000 } }));
		expect(dirty.kind === "refused" && dirty.failure.message).toContain("left files git would commit in the worktree (index.js)");
		nothingLeft(repo, "dirty");
		// the parent's files are untouched by all of it
		expect(repo.read("index.js")).toBe("require('dep');\n");
	});
});
