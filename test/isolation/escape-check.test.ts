/**
 * The escape check: a child that writes into the parent's directory by absolute path is reported;
 * paths the parent touched itself are not; content changes of already-dirty files are seen.
 */
import { rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { checkEscape, escapedPaths, parseStatus, sameState, takeFingerprint } from "../../src/isolation/escape-check.ts";
import { clearGitFactsCache } from "../../src/isolation/git.ts";
import { createWorktree } from "../../src/isolation/worktree.ts";
import { finishWorktree } from "../../src/isolation/worktree-finish.ts";
import { commitAll, git, makeRepo, noFallback, writeAt } from "./support/repo.ts";

beforeEach(() => clearGitFactsCache());

describe("escape check", () => {
	it("reports a path the child wrote into the parent's tree by absolute path, not one the parent touched", async () => {
		const repo = makeRepo({ "src/a.ts": "a\n", "src/b.ts": "b\n" });
		const outcome = await createWorktree({ runId: "esc", parentCwd: repo.root, agentDir: repo.agentDir, settings: noFallback });
		if (outcome.kind !== "worktree") throw new Error(outcome.kind);
		const handle = outcome.handle;
		// the child escapes: it writes to the parent's files by absolute path
		writeAt(join(repo.root, "src/a.ts"), "written by the child\n");
		writeAt(join(repo.root, "stray.txt"), "child's new file\n");
		// the parent edits a file itself meanwhile
		writeAt(join(repo.root, "src/b.ts"), "parent edit\n");
		const after = await takeFingerprint(repo.root, { since: handle.before });
		const touched = new Set([join(repo.root, "src/b.ts")]);
		expect(escapedPaths(handle.before, after, touched)).toEqual(["src/a.ts", "stray.txt"]);
		const report = checkEscape(handle.before, after, touched);
		expect(report.warning).toContain("src/a.ts, stray.txt");
		expect(report.headMoved).toBeNull();
		await finishWorktree(handle, { type: "t", description: "d", status: "completed" });
	});

	it("sees a second edit of an already-dirty file, and deletions", async () => {
		const repo = makeRepo({ "a.txt": "1\n", "gone.txt": "g\n" });
		repo.write("a.txt", "dirty before the run\n");
		const before = await takeFingerprint(repo.root);
		repo.write("a.txt", "dirtier after the run\n");
		rmSync(join(repo.root, "gone.txt"));
		const after = await takeFingerprint(repo.root, { since: before });
		expect(escapedPaths(before, after, new Set())).toEqual(["a.txt", "gone.txt"]);
		// nothing changed → nothing reported
		expect(escapedPaths(after, await takeFingerprint(repo.root, { since: after }), new Set())).toEqual([]);
	});

	it("reads stat data, not content, of the files it lists, except those written in the same clock tick", async () => {
		const repo = makeRepo({ "a.txt": "1\n" });
		repo.write("old.txt", "untracked, written a while ago\n");
		await new Promise((resolve) => setTimeout(resolve, 200));
		repo.write("fresh.txt", "untracked, written just now\n");
		const before = await takeFingerprint(repo.root);
		expect(before.entries["old.txt"]).toMatch(/^\? {2}s:\d+:[\d.]+:[\d.]+:\d+:\d+$/);
		// racy: its stat data cannot prove a same-size rewrite in the same tick, so its content is hashed too
		expect(before.entries["fresh.txt"]).toMatch(/#[0-9a-f]{40}$/);
		const again = await takeFingerprint(repo.root, { since: before });
		expect(escapedPaths(before, again, new Set())).toEqual([]);
	});

	it("compares a racy path by its hash as well as its stat data", () => {
		const stat = "?  s:4:100:100:7:33188";
		expect(sameState(`${stat}#aaaa`, `${stat}#aaaa`)).toBe(true);
		// same stat data, other content: a same-size write within the same tick
		expect(sameState(`${stat}#aaaa`, `${stat}#bbbb`)).toBe(false);
		expect(sameState(`${stat}#aaaa`, stat)).toBe(false);
		expect(sameState(stat, "?  s:4:200:200:7:33188")).toBe(false);
		expect(sameState(stat, stat)).toBe(true);
		expect(sameState(undefined, stat)).toBe(false);
	});

	it("treats touched directories and repository-relative paths as covering what is below them", async () => {
		const repo = makeRepo({ "lib/x.txt": "x\n", "lib/deep/y.txt": "y\n", "z.txt": "z\n" });
		const before = await takeFingerprint(repo.root);
		repo.write("lib/x.txt", "changed\n");
		repo.write("lib/deep/y.txt", "changed\n");
		repo.write("z.txt", "changed\n");
		const after = await takeFingerprint(repo.root, { since: before });
		expect(escapedPaths(before, after, new Set(["lib"]))).toEqual(["z.txt"]);
		expect(escapedPaths(before, after, new Set(["./z.txt", join(repo.root, "lib/deep")]))).toEqual(["lib/x.txt"]);
		expect(escapedPaths(before, after, new Set(["/somewhere/else/z.txt"]))).toEqual(["lib/deep/y.txt", "lib/x.txt", "z.txt"]);
	});

	it("recognises the parent's touched paths written through a symlink to the repository", async () => {
		const repo = makeRepo({ "a.txt": "1\n", "b.txt": "2\n" });
		const link = join(dirname(repo.root), "linked-project");
		symlinkSync(repo.root, link);
		const before = await takeFingerprint(repo.root);
		repo.write("a.txt", "parent edit through the link\n");
		repo.write("b.txt", "written by the child\n");
		const after = await takeFingerprint(repo.root);
		expect(escapedPaths(before, after, new Set([join(link, "a.txt")]))).toEqual(["b.txt"]);
	});

	it("notices a moved HEAD and staged changes", async () => {
		const repo = makeRepo({ "a.txt": "1\n" });
		const before = await takeFingerprint(repo.root);
		repo.write("a.txt", "2\n");
		git(repo.root, "add", "a.txt");
		const staged = await takeFingerprint(repo.root, { since: before });
		expect(escapedPaths(before, staged, new Set())).toEqual(["a.txt"]);
		commitAll(repo.root, "moved");
		const after = await takeFingerprint(repo.root, { since: before });
		const report = checkEscape(before, after, new Set());
		expect(report.headMoved?.from).toBe(before.head);
		expect(report.headMoved?.to).toBe(git(repo.root, "rev-parse", "HEAD"));
		expect(report.warning).toMatch(/HEAD of .* moved/);
	});

	it("parses porcelain v2 records, including renames, unmerged entries and paths with spaces", () => {
		const z = [
			"# branch.oid 1111111111111111111111111111111111111111",
			"# branch.head my branch",
			"1 .M N... 100644 100644 100644 aaaa bbbb dir/with space.txt",
			"2 R. N... 100644 100644 100644 aaaa aaaa R100 new name.txt",
			"old name.txt",
			"u UU N... 100644 100644 100644 100644 a b c both.txt",
			"? untracked.txt",
			"! ignored/",
			"",
		].join("\0");
		const parsed = parseStatus(z);
		expect(parsed.head).toBe("1111111111111111111111111111111111111111");
		expect(parsed.branch).toBe("my branch");
		expect(parsed.entries.map((e) => [e.kind, e.path, e.origPath ?? null])).toEqual([
			["1", "dir/with space.txt", null],
			["2", "new name.txt", "old name.txt"],
			["u", "both.txt", null],
			["?", "untracked.txt", null],
			["!", "ignored/", null],
		]);
		expect(parseStatus("# branch.oid (initial)\0# branch.head (detached)\0")).toMatchObject({ head: null, branch: null });
	});
});
