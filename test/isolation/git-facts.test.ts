/**
 * Repository facts outside a repository (issue 28): the answer "not in a git working tree" is kept
 * while no `.git` appears in the directory or any directory above it, so a spawn outside a
 * repository runs no `git` per run; `git init` there, or above, is seen by the next call.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearGitFactsCache, repoFacts } from "../../src/isolation/git.ts";

let log = "";
const previous = process.env.CADRE_GIT;
beforeEach(() => {
	clearGitFactsCache();
	const dir = mkdtempSync(join(process.env.TMPDIR as string, "git-count-"));
	log = join(dir, "calls.log");
	writeFileSync(log, "");
	const wrapper = join(dir, "git");
	writeFileSync(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec git "$@"\n`);
	chmodSync(wrapper, 0o755);
	process.env.CADRE_GIT = wrapper;
});
afterEach(() => {
	if (previous === undefined) delete process.env.CADRE_GIT;
	else process.env.CADRE_GIT = previous;
});

const calls = () => readFileSync(log, "utf8").split("\n").filter(Boolean).length;

describe("repository facts outside a repository", () => {
	it("asks git once, and again only after a .git appears in the directory or above it", async () => {
		const top = mkdtempSync(join(process.env.TMPDIR as string, "norepo-"));
		const cwd = join(top, "a", "b");
		mkdirSync(cwd, { recursive: true });
		expect((await repoFacts(cwd)).ok).toBe(false);
		expect((await repoFacts(cwd)).ok).toBe(false);
		await Promise.all([repoFacts(cwd), repoFacts(cwd)]);
		expect(calls()).toBe(1);
		execFileSync("git", ["init", "-q"], { cwd: top });
		const found = await repoFacts(cwd);
		expect(found.ok).toBe(true);
		expect(calls()).toBe(2);
	});

	it("sees git init in the directory itself", async () => {
		const cwd = mkdtempSync(join(process.env.TMPDIR as string, "norepo-"));
		expect((await repoFacts(cwd)).ok).toBe(false);
		execFileSync("git", ["init", "-q"], { cwd });
		expect((await repoFacts(cwd)).ok).toBe(true);
	});
});
