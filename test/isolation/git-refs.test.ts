/**
 * HEAD and branch tips when the repository's refs are not loose or packed files (reftable, git ≥
 * 2.45): cadre asks git instead of reading files. This machine's git (2.39) cannot write reftable, so
 * the test simulates one: the repository's real git directory sits apart (`.git` is a gitfile), and a
 * `CADRE_GIT` wrapper reports a reftable-shaped directory as the git directory — `HEAD` naming
 * `refs/heads/.invalid`, `refs/heads` a plain file, a `reftable/` stack — while running every command
 * on the real one. Reading files there finds no commits; only git knows where HEAD is.
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clearGitFactsCache, gitFacts, readHead, readRef } from "../../src/isolation/git.ts";
import { commitAll, git } from "./support/repo.ts";

const WRAPPER = `#!/usr/bin/env bash
# A git whose refs live where no file reader finds them: paths of the simulated git directory
# ($SIM) become the real one ($REAL) in arguments, and the other way round in output.
set -o pipefail
args=()
for arg in "$@"; do args+=("\${arg//"$SIM"/"$REAL"}"); done
git "\${args[@]}" | sed "s#$REAL#$SIM#g"
`;

interface SimulatedRepo {
	root: string;
	sim: string;
	commit(message: string): string;
}

/** A repository on `main` whose git directory, as cadre is told, holds reftable's stubs only. */
function reftableRepo(options: { commits: number }): SimulatedRepo {
	const base = realpathSync(mkdtempSync(join(process.env.TMPDIR as string, "reftable-")));
	const root = join(base, "project");
	const real = join(base, "real.git");
	const sim = join(base, "sim.git");
	git(base, "init", "-q", "-b", "main", `--separate-git-dir=${real}`, root);
	mkdirSync(join(sim, "refs"), { recursive: true });
	mkdirSync(join(sim, "reftable"));
	writeFileSync(join(sim, "HEAD"), "ref: refs/heads/.invalid\n");
	writeFileSync(join(sim, "refs", "heads"), "this repository uses the reftable format\n");
	writeFileSync(join(sim, "reftable", "tables.list"), "0x000000000001-0x000000000002-0a1b2c3d.ref\n");
	const wrapper = join(base, "git-reftable");
	writeFileSync(wrapper, WRAPPER);
	chmodSync(wrapper, 0o755);
	process.env.CADRE_GIT = wrapper;
	process.env.SIM = sim;
	process.env.REAL = real;
	const repo: SimulatedRepo = {
		root,
		sim,
		commit(message) {
			writeFileSync(join(root, `${message}.txt`), message);
			return commitAll(root, message);
		},
	};
	for (let i = 0; i < options.commits; i++) repo.commit(`c${i}`);
	return repo;
}

beforeEach(() => clearGitFactsCache());
afterEach(() => {
	for (const name of ["CADRE_GIT", "SIM", "REAL"]) delete process.env[name];
});

describe("refs that are not files (reftable)", () => {
	it("the simulation holds: cadre is told the reftable-shaped directory, and git still works", async () => {
		const repo = reftableRepo({ commits: 1 });
		const facts = await gitFacts(repo.root);
		expect(facts.ok && facts.facts.gitDir).toBe(repo.sim);
		expect(facts.ok && facts.facts.commonDir).toBe(repo.sim);
	});

	it("HEAD and the branch come from git: the checked-out branch and its commit", async () => {
		const repo = reftableRepo({ commits: 2 });
		const head = git(repo.root, "rev-parse", "HEAD");
		const facts = await gitFacts(repo.root);
		expect(facts.ok && { branch: facts.facts.branch, head: facts.facts.head }).toEqual({ branch: "main", head });
	});

	it("a detached HEAD has its commit and no branch", async () => {
		const repo = reftableRepo({ commits: 2 });
		const first = git(repo.root, "rev-parse", "HEAD~1");
		git(repo.root, "checkout", "-q", "--detach", first);
		const facts = await gitFacts(repo.root);
		expect(facts.ok && { branch: facts.facts.branch, head: facts.facts.head }).toEqual({ branch: null, head: first });
	});

	it("an unborn branch: the branch name, no commit", async () => {
		const repo = reftableRepo({ commits: 0 });
		const facts = await gitFacts(repo.root);
		expect(facts.ok && { branch: facts.facts.branch, head: facts.facts.head }).toEqual({ branch: "main", head: null });
	});

	it("a branch tip comes from git; a branch that does not exist is null", async () => {
		const repo = reftableRepo({ commits: 1 });
		git(repo.root, "branch", "cadre/explore-abc123");
		const tip = repo.commit("later");
		const facts = await gitFacts(repo.root);
		if (!facts.ok) throw new Error(facts.message);
		expect(readRef(facts.facts, "refs/heads/main")).toBe(tip);
		expect(readRef(facts.facts, "refs/heads/cadre/explore-abc123")).toBe(git(repo.root, "rev-parse", "HEAD~1"));
		expect(readRef(facts.facts, "refs/heads/cadre/missing")).toBeNull();
	});
});

describe("refs in files", () => {
	it("are read without running git", async () => {
		const base = realpathSync(mkdtempSync(join(process.env.TMPDIR as string, "files-refs-")));
		git(base, "init", "-q", "-b", "main", "project");
		const root = join(base, "project");
		writeFileSync(join(root, "a.txt"), "a");
		const head = commitAll(root, "first");
		git(root, "branch", "side");
		git(root, "pack-refs", "--all");
		const facts = await gitFacts(root);
		if (!facts.ok) throw new Error(facts.message);
		process.env.CADRE_GIT = join(base, "no-such-git");
		expect(readHead(facts.facts)).toEqual({ branch: "main", head });
		expect(readRef(facts.facts, "refs/heads/side")).toBe(head);
		expect(readRef(facts.facts, "refs/heads/missing")).toBeNull();
	});
});
