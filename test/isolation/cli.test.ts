/**
 * `cadre worktrees list | apply ID | clean` through the CLI entry, with a captured io.
 */
import { existsSync } from "node:fs";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { main } from "../../src/hosts/cli/main.ts";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { childRun } from "./support/child.ts";
import { captured } from "./support/io.ts";
import { commitAll, git, makeRepo } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

describe("cadre worktrees", () => {
	it("lists, applies and cleans through the CLI entry", async () => {
		const repo = makeRepo({ ".gitignore": "*.log\n", "a.txt": "one\n" });
		await childRun(repo, "good", { "a.txt": "from the child\n" });
		const kept = await childRun(repo, "kept", { "k.txt": "k\n", "run.log": "log\n" });

		const list = captured(join(repo.root));
		expect(await main(["worktrees", "list"], list)).toBe(0);
		expect(list.stdout).toMatch(/^ID\s+STATE\s+APPLIED\s+COMMIT/m);
		expect(list.stdout).toMatch(/^good\s+not applied\s+no\s+[0-9a-f]{10}\s+cadre\(worker\): run good$/m);
		expect(list.stdout).toMatch(/^kept\s+kept \(1 ignored\)\s+no/m);
		expect(list.stdout).toContain("kept: ignored files kept in the worktree: run.log");

		const json = captured(repo.root);
		expect(await main(["worktrees", "list", "--json"], json)).toBe(0);
		const parsed = JSON.parse(json.stdout);
		expect(parsed.ok).toBe(true);
		expect(parsed.repoRoot).toBe(repo.root);
		expect(parsed.entries.map((e: { id: string; state: string }) => [e.id, e.state])).toEqual([
			["good", "unapplied"],
			["kept", "kept"],
		]);

		const apply = captured(repo.root);
		expect(await main(["worktrees", "apply", "good", "--cwd", repo.root], apply)).toBe(0);
		expect(apply.stdout).toContain("Applied cadre/good to main.");
		expect(repo.read("a.txt")).toBe("from the child\n");

		const clean = captured(repo.root);
		expect(await main(["worktrees", "clean"], clean)).toBe(0);
		expect(clean.stdout).toContain("deleted  cadre/good  (already applied)");
		expect(clean.stdout).toMatch(/kept\s+kept\s+.*ignored files: run\.log/);
		expect(existsSync(kept.worktreePath)).toBe(true);
		expect(git(repo.root, "branch", "--list", "cadre/good")).toBe("");
	});

	it("exits 1 with the conflicting paths and an unchanged tree on a conflicting apply", async () => {
		const repo = makeRepo({ "a.txt": "base\n" });
		await childRun(repo, "clash", { "a.txt": "child\n" });
		repo.write("a.txt", "parent\n");
		const head = commitAll(repo.root, "parent");
		const io = captured(repo.root);
		expect(await main(["worktrees", "apply", "clash"], io)).toBe(1);
		expect(io.stderr).toContain("conflicts with main in 1 path(s): a.txt");
		expect(git(repo.root, "rev-parse", "HEAD")).toBe(head);
		expect(git(repo.root, "status", "--porcelain")).toBe("");

		const json = captured(repo.root);
		expect(await main(["worktrees", "apply", "clash", "--json"], json)).toBe(1);
		expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, outcome: "conflict", paths: ["a.txt"] });
	});

	it("exits 1 outside a git repository, saying so", async () => {
		const dir = realpathSync(mkdtempSync(join(tmpdir(), "cadre-cli-norepo-")));
		const io = captured(dir);
		expect(await main(["worktrees", "list"], io)).toBe(1);
		expect(io.stderr).toContain("not inside a git working tree");
		const json = captured(dir);
		expect(await main(["worktrees", "clean", "--json"], json)).toBe(1);
		expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, code: "not-a-repository" });
	});
});
