/**
 * Cost of worktree isolation per spawn (spec 07): create + finish on a generated repository of
 * 5,000 files, with and without a change by the child, p50/p95 — next to the floor measured in the
 * same run: a bare `git status` of the same repository, and the raw `git worktree add` + `git worktree
 * remove` pair (the checkout and deletion of 5,000 files that any worktree design pays), so what cadre
 * adds on top is visible. Run with `npm run bench:worktree` (`ROUNDS=n` to change the rounds).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runGit } from "../src/isolation/git.ts";
import { createWorktree, finishWorktree } from "../src/isolation/worktree.ts";

const FILES = 5_000;
const ROUNDS = Number(process.env.ROUNDS ?? 10);

const base = realpathSync(mkdtempSync(join(tmpdir(), "cadre-bench-wt-")));
const root = join(base, "repo");
const agentDir = join(base, "agent");
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
process.env.GIT_CONFIG_GLOBAL = "/dev/null";
process.env.GIT_CONFIG_NOSYSTEM = "1";
const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env, stdio: "pipe" });

mkdirSync(root, { recursive: true });
git("init", "-q", "-b", "main");
git("config", "user.name", "Bench");
git("config", "user.email", "bench@localhost");
for (let i = 0; i < FILES; i++) {
	const dir = join(root, `pkg${i % 50}`, `mod${i % 7}`);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, `file${i}.ts`), `export const value${i} = ${i};\n// ${"x".repeat(i % 200)}\n`);
}
git("add", "-A");
git("commit", "-q", "-m", "generated");
git("gc", "-q");

function percentile(samples: number[], p: number): number {
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function line(name: string, samples: number[], floor?: number): void {
	const p50 = percentile(samples, 50);
	const ratio = floor ? `  (${(p50 / floor).toFixed(1)}× floor)` : "";
	console.log(`${name.padEnd(50)} p50 ${p50.toFixed(1).padStart(7)} ms   p95 ${percentile(samples, 95).toFixed(1).padStart(7)} ms${ratio}`);
}

const settings = { baseDir: null, allowSharedFallback: false };
const info = { type: "bench", description: "bench run", status: "completed" } as const;
const floor: number[] = [];
const rawGit: number[] = [];
const create: number[] = [];
const finishClean: number[] = [];
const spawnClean: number[] = [];
const spawnChanged: number[] = [];
const finishChanged: number[] = [];

// warm up: the fs cache, git's index, cadre's cached repository facts
await runGit(["status", "--porcelain=v2"], { cwd: root });
{
	const warm = await createWorktree({ runId: "warm", parentCwd: root, agentDir, settings });
	if (warm.kind !== "worktree") throw new Error(JSON.stringify(warm));
	await finishWorktree(warm.handle, info);
}

for (let round = 0; round < ROUNDS; round++) {
	let t = performance.now();
	await runGit(["status", "--porcelain=v2"], { cwd: root });
	floor.push(performance.now() - t);

	t = performance.now();
	await runGit(["worktree", "add", "--quiet", "-b", `raw-${round}`, join(base, `raw-${round}`), "HEAD"], { cwd: root });
	await runGit(["worktree", "remove", join(base, `raw-${round}`)], { cwd: root });
	rawGit.push(performance.now() - t);

	t = performance.now();
	const clean = await createWorktree({ runId: `clean-${round}`, parentCwd: root, agentDir, settings });
	const created = performance.now();
	if (clean.kind !== "worktree") throw new Error(JSON.stringify(clean));
	const cleanReport = await finishWorktree(clean.handle, info);
	const done = performance.now();
	if (cleanReport.kept || cleanReport.changed) throw new Error("an unchanged worktree should be removed");
	create.push(created - t);
	finishClean.push(done - created);
	spawnClean.push(done - t);

	t = performance.now();
	const changed = await createWorktree({ runId: `changed-${round}`, parentCwd: root, agentDir, settings });
	if (changed.kind !== "worktree") throw new Error(JSON.stringify(changed));
	writeFileSync(join(changed.handle.worktreePath, "pkg1", "mod1", "file1.ts"), `export const value1 = ${round};\n`);
	writeFileSync(join(changed.handle.worktreePath, `new-${round}.ts`), "export {};\n");
	const beforeFinish = performance.now();
	const changedReport = await finishWorktree(changed.handle, info);
	const end = performance.now();
	if (!changedReport.committed || changedReport.kept) throw new Error("a changed worktree should be committed and removed");
	finishChanged.push(end - beforeFinish);
	spawnChanged.push(end - t);
}

const floorP50 = percentile(floor, 50);
console.log(`worktree isolation on a ${FILES}-file repository, ${ROUNDS} rounds (git ${execFileSync("git", ["--version"]).toString().trim().replace("git version ", "")})`);
console.log(`load average at the end: ${loadavg().map((n) => n.toFixed(1)).join(" ")} (absolute times move with load: compare inside one run)`);
line("floor: bare git status", floor);
line("floor: raw git worktree add + remove", rawGit, floorP50);
line("createWorktree (status + worktree add)", create, floorP50);
line("finishWorktree, no change (remove + branch -D)", finishClean, floorP50);
line("finishWorktree, one edit + one new file", finishChanged, floorP50);
line("isolated spawn without a change (create+finish)", spawnClean, floorP50);
line("isolated spawn with a change (create+finish)", spawnChanged, floorP50);
console.log(`cadre's overhead over the raw git add+remove pair (no change, p50): ${(percentile(spawnClean, 50) - percentile(rawGit, 50)).toFixed(1)} ms`);

rmSync(base, { recursive: true, force: true });
