/**
 * Start-up of `cadre list --json`: the TypeScript sources (a checkout) against the JavaScript build
 * the package ships (ADR 0003), each a fresh process, with `node -e 0` as the floor in the same run.
 * The build goes to a temporary package directory laid out like the installed package
 * (`bin/cadre.js`, `dist/`, no `src/`), so the same launcher takes the package's path.
 *
 * Run: npm run bench:startup [-- --runs 20]
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 20;
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const root = mkdtempSync(join(tmpdir(), "cadre-bench-startup-"));

const pkg = join(root, "package");
mkdirSync(join(pkg, "bin"), { recursive: true });
copyFileSync(join(repo, "package.json"), join(pkg, "package.json"));
copyFileSync(join(repo, "bin", "cadre.js"), join(pkg, "bin", "cadre.js"));
symlinkSync(join(repo, "node_modules"), join(pkg, "node_modules"));
execFileSync(join(repo, "node_modules", ".bin", "tsc"), ["-p", join(repo, "tsconfig.build.json"), "--noCheck", "--outDir", join(pkg, "dist")]);

const project = join(root, "project");
mkdirSync(join(project, ".pi", "agents"), { recursive: true });
for (let i = 0; i < 5; i++) writeFileSync(join(project, ".pi", "agents", `agent-${i}.md`), `---\ndescription: Agent ${i}\ntools: read, grep\n---\nBody ${i}.\n`);
const env = { ...process.env, HOME: join(root, "home"), PI_CODING_AGENT_DIR: join(root, "agent"), NO_COLOR: "1" };

function time(args: string[]): number[] {
	const samples: number[] = [];
	for (let i = 0; i < RUNS + 2; i++) {
		const start = performance.now();
		const run = spawnSync(process.execPath, args, { env, cwd: project, encoding: "utf8" });
		const elapsed = performance.now() - start;
		if (run.status !== 0) throw new Error(`${args.join(" ")} exited ${run.status}: ${run.stderr}`);
		if (i >= 2) samples.push(elapsed); // two warm-up runs fill the file cache
	}
	return samples.sort((a, b) => a - b);
}

const pct = (samples: number[], p: number) => samples[Math.min(samples.length - 1, Math.floor((samples.length * p) / 100))] as number;
const list = ["list", "--json", "--cwd", project];
const floor = time(["-e", "0"]);
const cases = [
	["sources (checkout)", time([join(repo, "bin", "cadre.js"), ...list])],
	["build (package)", time([join(pkg, "bin", "cadre.js"), ...list])],
] as const;

process.stdout.write(`cadre list --json start-up, ${RUNS} runs each (p50 / p95)\n`);
process.stdout.write(`  floor: node -e 0          ${pct(floor, 50).toFixed(1)} / ${pct(floor, 95).toFixed(1)} ms\n`);
for (const [name, samples] of cases) {
	const p50 = pct(samples, 50);
	process.stdout.write(`  ${name.padEnd(24)} ${p50.toFixed(1)} / ${pct(samples, 95).toFixed(1)} ms  (${(p50 / pct(floor, 50)).toFixed(2)}× floor, ${(p50 - pct(floor, 50)).toFixed(1)} ms above it)\n`);
}
rmSync(join(pkg, "node_modules"));
rmSync(root, { recursive: true, force: true });
