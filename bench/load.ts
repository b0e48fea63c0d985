/**
 * Load benchmark (spec 07: ≤ 150 ms for 1,000 definitions + 200 roles + 200 personas).
 * Generates the files in a temporary project, then times repeated `loadAll` calls and, as a floor
 * in the same run, reading the same files without parsing. Prints p50 / p95 and per-file cost.
 *
 * Run: npm run bench:load [-- --runs 40]
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAll } from "../src/files/load.ts";

const DEFINITIONS = 1000;
const ROLES = 200;
const PERSONAS = 200;
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 30;
const WARMUP = 3;

const root = mkdtempSync(join(tmpdir(), "cadre-bench-load-"));
const project = join(root, "project");
const agent = join(root, "agent");
const home = join(root, "home");
for (const dir of ["agents", "roles", "personas", "texts"]) mkdirSync(join(project, ".pi", dir), { recursive: true });
mkdirSync(join(project, ".git"));
mkdirSync(agent, { recursive: true });
mkdirSync(home, { recursive: true });

const paragraph = (i: number) =>
	`Agent ${i} reviews the change set for correctness. It reads the files involved, runs the checks it may run, and reports findings with file paths and line numbers.\n\n## Rules\n\n- Keep answers short.\n- Quote the code you mean.\n- Say what you did not check.\n`;

for (let i = 0; i < DEFINITIONS; i++) {
	const fm = [
		`description: Agent number ${i} for benchmarks`,
		`tools: [read, grep, find, ls${i % 3 === 0 ? ", bash" : ""}]`,
		`capability: ${i % 2 === 0 ? "read-only" : "execute"}`,
		`model: test/model-${i % 4}`,
		`thinking: ${["low", "medium", "high"][i % 3]}`,
		`max_turns: ${10 + (i % 20)}`,
		i % 5 === 0 ? "isolation: worktree" : "run_in_background: false",
		i % 7 === 0 ? `persona: persona-${i % PERSONAS}` : "inherit_context: false",
	];
	writeFileSync(join(project, ".pi/agents", `agent-${i}.md`), `---\n${fm.join("\n")}\n---\n\n${paragraph(i)}`);
}
for (let i = 0; i < ROLES; i++) {
	writeFileSync(join(project, ".pi/texts", `role-${i}.md`), `Role text ${i}.\n`);
	const fm = [`description: Role ${i}`, `capability: read-only`, `model: test/model-${i % 3}`, `prompt_file: ../texts/role-${i}.md`];
	writeFileSync(join(project, ".pi/roles", `agent-${i}.md`), `---\n${fm.join("\n")}\n---\nAct as role ${i}.\n`);
}
for (let i = 0; i < PERSONAS; i++) {
	if (i % 4 === 0) {
		writeFileSync(
			join(project, ".pi/personas", `persona-${i}.toml`),
			`description = "Persona ${i}"\ninstructions = "Be persona ${i}."\nreasoning_effort = "low"\n\n[[inputs]]\nname = "spec"\nrequired = true\n`,
		);
	} else {
		const fm = [`description: Persona ${i}`, "thinking: low", "outputs:", "  - name: report", "    io_type: text"];
		writeFileSync(join(project, ".pi/personas", `persona-${i}.md`), `---\n${fm.join("\n")}\n---\nBe persona ${i}.\n`);
	}
}
const fileCount = DEFINITIONS + ROLES + PERSONAS;

function percentile(sorted: number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function time(fn: () => void): { p50: number; p95: number } {
	for (let i = 0; i < WARMUP; i++) fn();
	const samples: number[] = [];
	for (let i = 0; i < RUNS; i++) {
		const start = performance.now();
		fn();
		samples.push(performance.now() - start);
	}
	samples.sort((a, b) => a - b);
	return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

let entries = 0;
let diagnostics = 0;
const load = time(() => {
	const r = loadAll({ cwd: project, agentDir: agent, homeDir: home, projectTrusted: false });
	entries = r.definitions.size + r.roles.size + r.personas.size;
	diagnostics = r.diagnostics.length;
});

const floor = time(() => {
	for (const dir of ["agents", "roles", "personas"]) {
		const base = join(project, ".pi", dir);
		for (const name of readdirSync(base)) readFileSync(join(base, name), "utf8");
	}
});

rmSync(root, { recursive: true, force: true });

const ms = (n: number) => `${n.toFixed(1)} ms`;
const us = (n: number) => `${((n * 1000) / fileCount).toFixed(1)} µs`;
console.log(`load: ${DEFINITIONS} definitions + ${ROLES} roles + ${PERSONAS} personas (${fileCount} files), ${RUNS} runs`);
console.log(`  entries loaded: ${entries} (3 built-ins included), diagnostics: ${diagnostics}`);
console.log(`  loadAll          p50 ${ms(load.p50)}  p95 ${ms(load.p95)}  per file p50 ${us(load.p50)}   target ≤ 150 ms`);
console.log(`  floor (read only) p50 ${ms(floor.p50)}  p95 ${ms(floor.p95)}  per file p50 ${us(floor.p50)}`);
console.log(`  ${load.p50 <= 150 ? "within" : "OVER"} target`);
