/**
 * `npm run bench:run` (issue 12): `cadre run` against `pi -p`, both real processes talking to the
 * same chat-completions stub on 127.0.0.1 (test/support/chat-server.ts), measured in one run:
 *
 * 1. Start-up: from process start to the first model request the stub receives, `cadre run
 *    general-purpose "…"` against `pi -p "…"` in the same directory with the same model — rounds
 *    alternate, medians compared (target: cadre ≤ 1.2× pi). Wall time, and the CPU time the process
 *    had used when its request arrived (read from /proc: steadier on a loaded machine). cadre runs
 *    twice: from this checkout (TypeScript sources, stripped by Node at load) and built to
 *    JavaScript the way the package ships (a temporary `tsc` build).
 * 2. Fan-out: `cadre run --batch` of 50 requests with `maxConcurrent: 8`, wall time, against 50
 *    sequential `cadre run` processes (and the same batch with `maxConcurrent: 1`, which separates
 *    the limiter's gain from process start-up). Every reply takes REPLY_MS, like a model would.
 *
 * Environment: ROUNDS (default 7), BATCH (default 50), REPLY_MS (default 300).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startChatServer } from "../test/support/chat-server.ts";
import { CADRE_BIN, nodeBinary, REPO_ROOT } from "../test/support/cli.ts";
import { type RunWorld, runWorld } from "../test/support/cadre-run.ts";
import { benchRoot } from "./support.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const BATCH = Number(process.env.BATCH ?? 50);
const REPLY_MS = Number(process.env.REPLY_MS ?? 300);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

let delay = 0;
const server = await startChatServer(async () => {
	if (delay > 0) await sleep(delay);
	return { text: "done" };
});
process.env.TMPDIR = join(benchRoot, "tmp");
const world: RunWorld = runWorld("bench-run-", server.baseUrl);

/** CPU time (user + system, ms) process `pid` has used, or null where /proc does not say. */
function cpuMs(pid: number | undefined): number | null {
	try {
		const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
		return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
	} catch {
		return null;
	}
}

interface Timed {
	code: number | null;
	/** From spawn to the first request at the stub, or null when none came. */
	firstRequestMs: number | null;
	/** The process's CPU time when that request arrived. */
	firstRequestCpuMs: number | null;
	wallMs: number;
	stderr: string;
}

/** Run a command in the world's project and time it. */
function timed(bin: string, args: string[]): Promise<Timed> {
	const before = server.requests.length;
	const started = performance.now();
	const child = spawn(bin, args, { cwd: world.project, env: world.env, stdio: ["ignore", "ignore", "pipe"] });
	let first: number | null = null;
	let firstCpu: number | null = null;
	const firstRequest = server.waitForRequests(before + 1).then(() => {
		first = performance.now() - started;
		firstCpu = cpuMs(child.pid);
	});
	let stderr = "";
	child.stderr?.on("data", (data: Buffer) => (stderr += data.toString("utf8")));
	return new Promise((resolve) => {
		child.on("close", async (code) => {
			await Promise.race([firstRequest, sleep(10)]);
			resolve({ code, firstRequestMs: first, firstRequestCpuMs: firstCpu, wallMs: performance.now() - started, stderr });
		});
	});
}

/**
 * cadre built to JavaScript as the package ships it: `tsc` over src/ into a temporary package with
 * this checkout's package.json and node_modules (ADR 0003's build, without packing).
 */
function buildPackage(): string {
	const dir = join(benchRoot, "package");
	mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dir, "tsconfig.json"),
		JSON.stringify({ extends: join(REPO_ROOT, "tsconfig.json"), compilerOptions: { noEmit: false, types: [], rootDir: join(REPO_ROOT, "src"), outDir: join(dir, "dist") }, include: [join(REPO_ROOT, "src")] }),
	);
	const build = spawnSync(join(REPO_ROOT, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.json"), "--noCheck"], { encoding: "utf8" });
	if (!existsSync(join(dir, "dist", "hosts", "cli", "main.js"))) throw new Error(`tsc build failed:\n${build.stdout}${build.stderr}`);
	writeFileSync(join(dir, "package.json"), readFileSync(join(REPO_ROOT, "package.json")));
	symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"));
	writeFileSync(join(dir, "cadre.mjs"), 'const { main } = await import("./dist/hosts/cli/main.js");\nprocess.exitCode = await main(process.argv.slice(2));\n');
	return join(dir, "cadre.mjs");
}

const built = buildPackage();
const cadre = (args: string[]) => timed(nodeBinary(), [CADRE_BIN, ...args]);
const cadreBuilt = (args: string[]) => timed(nodeBinary(), [built, ...args]);
const pi = (args: string[]) => timed(join(REPO_ROOT, "node_modules", ".bin", "pi"), args);

function check(run: { code: number | null; stderr: string }, what: string): void {
	if (run.code !== 0) throw new Error(`${what} exited ${run.code}:\n${run.stderr}`);
}

// ── 1. Start-up to the first model request ──
// One warm-up each (Node's compile cache, the file system cache), then alternating rounds.
const contenders = {
	"pi -p": () => pi(["-p", "a task"]),
	"cadre run (checkout, .ts)": () => cadre(["run", "general-purpose", "a task"]),
	"cadre run (built, .js)": () => cadreBuilt(["run", "general-purpose", "a task"]),
};
const samples = new Map<string, { wall: number[]; cpu: number[] }>();
for (const [name, start] of Object.entries(contenders)) check(await start(), name);
for (let round = 0; round < ROUNDS; round++) {
	for (const [name, start] of Object.entries(contenders)) {
		const run = await start();
		check(run, name);
		const entry = samples.get(name) ?? { wall: [], cpu: [] };
		entry.wall.push(run.firstRequestMs as number);
		if (run.firstRequestCpuMs !== null) entry.cpu.push(run.firstRequestCpuMs);
		samples.set(name, entry);
	}
}
const base = samples.get("pi -p") as { wall: number[]; cpu: number[] };
console.log(`start-up to the first model request (${ROUNDS} rounds, medians; ratio against pi -p, target ≤ 1.20×)`);
for (const [name, { wall, cpu }] of samples) {
	const cpuText = cpu.length ? `   cpu ${fmt(median(cpu))} (${(median(cpu) / median(base.cpu)).toFixed(2)}×)` : "";
	console.log(`  ${name.padEnd(27)} wall ${fmt(median(wall))} (${(median(wall) / median(base.wall)).toFixed(2)}×)${cpuText}`);
}

// Where the difference goes: the CPU time of loading each of cadre's dependencies' module trees in a
// fresh Node (median of 5, minus an empty Node's), which `pi -p` (its own bundle) does not load.
// typebox is the run records' schema: only reading records back (a --resume) loads it.
function loadCpuMs(code: string): number {
	const runs: number[] = [];
	for (let i = 0; i < 5; i++) {
		const run = spawnSync(nodeBinary(), ["--input-type=module", "-e", `${code}\nconst u = process.cpuUsage(); console.log((u.user + u.system) / 1000);`], { cwd: REPO_ROOT, encoding: "utf8" });
		runs.push(Number(run.stdout.trim()));
	}
	return median(runs);
}
const empty = loadCpuMs("");
console.log("  of which, loading module trees pi -p does not load (cpu, a fresh node):");
for (const [name, code] of [
	["typebox + typebox/compile (--resume only)", 'await import("typebox"); await import("typebox/compile");'],
	["yaml (the loader's frontmatter parser)", 'await import("yaml");'],
	["commander + smol-toml", 'await import("commander"); await import("smol-toml");'],
] as const) {
	console.log(`    ${name.padEnd(42)} ${fmt(loadCpuMs(code) - empty)}`);
}

// ── 2. Fan-out: a batch against sequential runs ──
delay = REPLY_MS;
const batchFile = join(world.root, "bench-batch.jsonl");
writeFileSync(batchFile, Array.from({ length: BATCH }, (_, i) => JSON.stringify({ type: "general-purpose", prompt: `task ${i + 1}` })).join("\n"));
const settings = join(world.agentDir, "subagents.json");

async function batch(maxConcurrent: number): Promise<number> {
	writeFileSync(settings, JSON.stringify({ maxConcurrent }));
	const run = await cadreBuilt(["run", "--batch", batchFile]);
	check(run, `cadre run --batch (maxConcurrent ${maxConcurrent})`);
	return run.wallMs;
}

const batch8 = await batch(8);
const maxInFlight8 = server.maxInFlight();
const batch1 = await batch(1);
writeFileSync(settings, JSON.stringify({}));
const sequentialStart = performance.now();
for (let i = 0; i < BATCH; i++) check(await cadreBuilt(["run", "general-purpose", `task ${i + 1}`]), "cadre run");
const sequential = performance.now() - sequentialStart;
console.log(`fan-out: ${BATCH} runs, each model reply ${REPLY_MS} ms`);
console.log(`  --batch, maxConcurrent 8     ${fmt(batch8)}   (at most ${maxInFlight8} requests in flight)`);
console.log(`  --batch, maxConcurrent 1     ${fmt(batch1)}`);
console.log(`  ${BATCH} sequential cadre run    ${fmt(sequential)}`);
console.log(`  batch (8) vs sequential      ${(sequential / batch8).toFixed(1)}× faster`);

await server.close();
