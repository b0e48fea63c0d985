/**
 * Cost of worktree isolation per spawn (spec 07, issue 14), on a generated repository of 5,000
 * files, p50/p95, next to floors measured in the same run:
 *
 * - the floor of a design that checks out a new worktree per spawn: a raw `git worktree add`
 *   (and the add + remove pair), and a bare `git status`;
 * - a new isolated spawn (`createWorktree` with the pool off: status + worktree add) and its whole
 *   cycle with finishing (commit, remove);
 * - a pooled isolated spawn (a worktree from the pool moved to the parent's HEAD, which moved by a
 *   10-file commit since) and its whole cycle (commit, back to the pool) — target: p50 ≤ 250 ms and
 *   ≥ 7× faster than the raw add;
 * - `worktree.include` of a 20,000-file `node_modules`: what it adds to a new and to a pooled spawn,
 *   and which copy method the file system allowed (reflink or plain copy);
 * - the escape check's fingerprint with 10,000 untracked files in the parent: hashing every listed
 *   file (before issue 14) against stat data (now).
 *
 * Run with `npm run bench:worktree` (`ROUNDS=n` to change the rounds).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Settings } from "../src/files/types.ts";
import { takeFingerprint } from "../src/isolation/escape-check.ts";
import { runGit } from "../src/isolation/git.ts";
import { createWorktree, type WorktreeHandle } from "../src/isolation/worktree.ts";
import { finishWorktree } from "../src/isolation/worktree-finish.ts";
import { poolSettled } from "../src/isolation/worktree-pool.ts";

const FILES = 5_000;
const ROUNDS = Number(process.env.ROUNDS ?? 10);
const INCLUDE_FILES = 20_000;
const UNTRACKED = 10_000;

const base = realpathSync(mkdtempSync(join(tmpdir(), "cadre-bench-wt-")));
const root = join(base, "repo");
const agentDir = join(base, "agent");
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
process.env.GIT_CONFIG_GLOBAL = "/dev/null";
process.env.GIT_CONFIG_NOSYSTEM = "1";
const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env, stdio: "pipe" }).toString().trim();

mkdirSync(root, { recursive: true });
git("init", "-q", "-b", "main");
git("config", "user.name", "Bench");
git("config", "user.email", "bench@localhost");
for (let i = 0; i < FILES; i++) {
	const dir = join(root, `pkg${i % 50}`, `mod${i % 7}`);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, `file${i}.ts`), `export const value${i} = ${i};\n// ${"x".repeat(i % 200)}\n`);
}
writeFileSync(join(root, ".gitignore"), "node_modules/\n");
git("add", "-A");
git("commit", "-q", "-m", "generated");
git("gc", "-q");

function percentile(samples: number[], p: number): number {
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const p50 = (samples: number[]) => percentile(samples, 50);

function line(name: string, samples: number[], floor?: number, floorName = "floor"): void {
	const ratio = floor ? `  (${(p50(samples) / floor).toFixed(2)}× ${floorName})` : "";
	console.log(`${name.padEnd(58)} p50 ${p50(samples).toFixed(1).padStart(7)} ms   p95 ${percentile(samples, 95).toFixed(1).padStart(7)} ms${ratio}`);
}

const noPool: Settings["worktree"] = { baseDir: null, allowSharedFallback: false, pool: { size: 0 } };
const withPool: Settings["worktree"] = { baseDir: null, allowSharedFallback: false, pool: { size: 1 } };
const info = { type: "bench", description: "bench run", status: "completed" } as const;

async function create(runId: string, settings: Settings["worktree"]): Promise<WorktreeHandle> {
	const outcome = await createWorktree({ runId, parentCwd: root, agentDir, settings });
	if (outcome.kind !== "worktree") throw new Error(JSON.stringify(outcome));
	return outcome.handle;
}

/** The child's work of one round: one edit, one new file. */
function childWork(handle: WorktreeHandle, round: number): void {
	writeFileSync(join(handle.worktreePath, "pkg1", "mod1", "file1.ts"), `export const value1 = ${round};\n`);
	writeFileSync(join(handle.worktreePath, `new-${handle.runId}.ts`), "export {};\n");
}

/** The parent moves on between pooled spawns: a commit that changes 10 files. */
let moves = 0;
function parentCommits(): void {
	moves++;
	// files 1, 351, …, 3151: all in pkg1/mod1 (file n lives in pkg<n % 50>/mod<n % 7>)
	for (let i = 0; i < 10; i++) writeFileSync(join(root, "pkg1", "mod1", `file${1 + 350 * i}.ts`), `export const moved = ${moves};\n`);
	git("commit", "-qam", `move ${moves}`);
}

const status: number[] = [];
const rawAdd: number[] = [];
const rawPair: number[] = [];
const newSpawn: number[] = [];
const newCycle: number[] = [];
const pooledSpawn: number[] = [];
const pooledCycle: number[] = [];

// warm up: the fs cache, git's index, cadre's cached repository facts
await runGit(["status", "--porcelain=v2"], { cwd: root });
await finishWorktree(await create("warm", noPool), info);

for (let round = 0; round < ROUNDS; round++) {
	let t = performance.now();
	await runGit(["status", "--porcelain=v2"], { cwd: root });
	status.push(performance.now() - t);

	t = performance.now();
	await runGit(["worktree", "add", "--quiet", "-b", `raw-${round}`, join(base, `raw-${round}`), "HEAD"], { cwd: root });
	rawAdd.push(performance.now() - t);
	await runGit(["worktree", "remove", join(base, `raw-${round}`)], { cwd: root });
	rawPair.push(performance.now() - t);

	t = performance.now();
	const fresh = await create(`new-${round}`, noPool);
	newSpawn.push(performance.now() - t);
	childWork(fresh, round);
	const freshReport = await finishWorktree(fresh, info);
	newCycle.push(performance.now() - t);
	if (!freshReport.committed || freshReport.kept) throw new Error("a changed worktree should be committed and removed");
}

// the pool: one round to fill it (a new worktree that goes back), then pooled rounds
await finishWorktree(await create("fill", withPool), info);
await poolSettled();
for (let round = 0; round < ROUNDS; round++) {
	parentCommits();
	const t = performance.now();
	const handle = await create(`pooled-${round}`, withPool);
	pooledSpawn.push(performance.now() - t);
	if (!handle.pooled) throw new Error("the pool should have had a worktree");
	childWork(handle, round);
	const report = await finishWorktree(handle, info);
	pooledCycle.push(performance.now() - t);
	if (!report.committed || !report.pooled) throw new Error(`a pooled worktree should be committed and go back: ${report.summary}`);
	await poolSettled();
}

// worktree.include of a 20,000-file node_modules
const modules = join(root, "node_modules");
for (let i = 0; i < INCLUDE_FILES; i++) {
	const dir = join(modules, `pkg${i % 400}`, `lib${i % 5}`);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, `f${i}.js`), `module.exports = ${i}; // ${"y".repeat(i % 300)}\n`);
}
execFileSync("sync");
const include = [{ path: "node_modules", mode: "copy" as const }];
const INCLUDE_ROUNDS = Math.max(3, Math.ceil(ROUNDS / 2));
const newPlain: number[] = [];
const newIncluded: number[] = [];
const pooledPlain: number[] = [];
const pooledIncluded: number[] = [];
let method = "?";
for (let round = 0; round < INCLUDE_ROUNDS; round++) {
	let t = performance.now();
	const plain = await create(`plain-${round}`, noPool);
	newPlain.push(performance.now() - t);
	await finishWorktree(plain, info);
	t = performance.now();
	const included = await create(`inc-${round}`, { ...noPool, include });
	newIncluded.push(performance.now() - t);
	method = included.setupReport?.include[0]?.method ?? "?";
	await finishWorktree(included, info);
}
// pooled: the pool's worktree already holds a copy (made by its refill, off the spawn's path); a
// hand-out syncs it with the parent's tree (a walk, and copies of what changed: here nothing)
await finishWorktree(await create("inc-fill", { ...withPool, include }), info);
await poolSettled();
for (let round = 0; round < INCLUDE_ROUNDS; round++) {
	parentCommits();
	let t = performance.now();
	const handle = await create(`pinc-${round}`, { ...withPool, include });
	pooledIncluded.push(performance.now() - t);
	if (!handle.pooled) throw new Error("the pool should have had a worktree");
	await finishWorktree(handle, info);
	await poolSettled();
}
for (let round = 0; round < INCLUDE_ROUNDS; round++) {
	parentCommits();
	const t = performance.now();
	const handle = await create(`pplain-${round}`, withPool);
	pooledPlain.push(performance.now() - t);
	if (!handle.pooled) throw new Error("the pool should have had a worktree");
	await finishWorktree(handle, info);
	await poolSettled();
}
rmSync(modules, { recursive: true, force: true });

// the escape check with 10,000 untracked files in the parent
for (let i = 0; i < UNTRACKED; i++) {
	const dir = join(root, "untracked", `d${i % 100}`);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, `u${i}.txt`), `untracked ${i} ${"z".repeat(i % 500)}\n`);
}
execFileSync("sync");
await new Promise((resolve) => setTimeout(resolve, 200));
const hashing: number[] = [];
const statting: number[] = [];
const statusAll: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
	let t = performance.now();
	await runGit(["status", "--porcelain=v2", "-z", "--untracked-files=all"], { cwd: root });
	statusAll.push(performance.now() - t);
	t = performance.now();
	await takeFingerprint(root, { content: true });
	hashing.push(performance.now() - t);
	t = performance.now();
	await takeFingerprint(root);
	statting.push(performance.now() - t);
}

const gitVersion = execFileSync("git", ["--version"]).toString().trim().replace("git version ", "");
console.log(`worktree isolation on a ${FILES}-file repository, ${ROUNDS} rounds (git ${gitVersion}, node ${process.version})`);
console.log(`load average at the end: ${loadavg().map((n) => n.toFixed(1)).join(" ")} (absolute times move with load: compare inside one run)`);
console.log("");
line("floor: bare git status", status);
line("floor: raw git worktree add", rawAdd);
line("floor: raw git worktree add + remove", rawPair);
line("new isolated spawn (status + worktree add)", newSpawn, p50(rawAdd), "raw add");
line("new isolated spawn + finish (commit, remove)", newCycle, p50(rawPair), "raw add+remove");
line("pooled isolated spawn (HEAD moved by 10 files)", pooledSpawn, p50(rawAdd), "raw add");
line("pooled isolated spawn + finish (commit, back to pool)", pooledCycle, p50(rawPair), "raw add+remove");
const speedup = p50(rawAdd) / p50(pooledSpawn);
console.log(
	`pooled spawn p50 ${p50(pooledSpawn).toFixed(1)} ms, ${speedup.toFixed(1)}× faster than a raw git worktree add ` +
		`(target: ≤ 250 ms and ≥ 7×: ${p50(pooledSpawn) <= 250 && speedup >= 7 ? "met" : "NOT met"})`,
);
console.log("");
console.log(`worktree.include of a ${INCLUDE_FILES}-file node_modules, ${INCLUDE_ROUNDS} rounds; copy method: ${method}` +
	(method === "reflink" ? " (this file system clones files)" : " (this file system cannot clone files: plain copies)"));
line("new spawn without include", newPlain);
line("new spawn with include (a full copy)", newIncluded);
line("pooled spawn without include", pooledPlain);
line("pooled spawn with include (copy synced, nothing changed)", pooledIncluded);
console.log(`include adds (p50): ${(p50(newIncluded) - p50(newPlain)).toFixed(1)} ms to a new spawn (${method}), ` +
	`${(p50(pooledIncluded) - p50(pooledPlain)).toFixed(1)} ms to a pooled one (the copy was made off the spawn's path)`);
console.log("");
console.log(`escape check: one fingerprint of the parent with ${UNTRACKED} untracked files`);
line("floor: git status --untracked-files=all", statusAll);
line("before: status + a hash of every listed file", hashing, p50(statusAll), "status");
line("after: status + stat data (hash only racy files)", statting, p50(statusAll), "status");

rmSync(base, { recursive: true, force: true });
