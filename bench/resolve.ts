/**
 * Resolution cost per request after loading (spec 07: ≤ 0.2 ms). Generates a project with 1,000
 * definitions, 200 roles and 200 personas in a temp dir, loads it once with the real loader, builds
 * the real model catalog, then times `resolve` for requests spread over every type (with roles,
 * personas, files to read, pins and request values). Prints p50, p95 and p99.
 * Run: `npm run bench:resolve`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadAll } from "../src/files/load.ts";
import { spawnReader } from "../src/resolve/spawn-reader.ts";
import { resolve } from "../src/resolve/resolve.ts";
import { builtinToolNames } from "../src/resolve/tools.ts";
import type { ResolveInput, SpawnRequest } from "../src/resolve/types.ts";
import { createModelCatalog } from "../src/runtime/pi/model-catalog.ts";

const DEFINITIONS = 1000;
const ROLES = 200;
const PERSONAS = 200;
const WARMUP = 2000;
const SAMPLES = 20_000;

function write(path: string, text: string): void {
	writeFileSync(path, text);
}

function generate(root: string): { project: string; agent: string; home: string } {
	const project = join(root, "project");
	const agent = join(root, "agent");
	const home = join(root, "home");
	for (const dir of ["agents", "roles", "personas", "texts"]) mkdirSync(join(project, ".pi", dir), { recursive: true });
	mkdirSync(agent, { recursive: true });
	mkdirSync(home, { recursive: true });
	write(
		join(agent, "models.json"),
		JSON.stringify({
			providers: {
				test: {
					baseUrl: "http://127.0.0.1:9/v1",
					api: "openai-completions",
					apiKey: "none",
					models: ["model-a", "model-b", "model-c", "parent-model"].map((id) => ({ id, reasoning: true })),
				},
			},
		}),
	);
	const models = ["test/model-a", "test/model-b", "test/model-c"];
	const levels = ["low", "medium", "high"];
	for (let i = 0; i < DEFINITIONS; i++) {
		const keys = [
			`description: Agent ${i} does one thing well.`,
			i % 3 === 0 ? `model: ${models[i % 3]}` : "model: inherit",
			`thinking: ${levels[i % 3]}`,
			i % 4 === 0 ? "tools: read, grep, find, ls, bash" : i % 4 === 1 ? "tools: '*'" : "",
			i % 5 === 0 ? "capability: read-only" : "",
			i % 7 === 0 ? `persona: persona-${i % PERSONAS}` : "",
			i % 11 === 0 ? "isolation: worktree" : "",
			"max_turns: 20",
		].filter((line) => line !== "");
		write(join(project, ".pi/agents", `agent-${i}.md`), `---\n${keys.join("\n")}\n---\nYou are agent ${i}.\n\nWork carefully and report back.\n`);
	}
	for (let i = 0; i < ROLES; i++) {
		const file = i % 2 === 0 ? `prompt_file: ../texts/role-${i}.md\n` : "";
		if (file) write(join(project, ".pi/texts", `role-${i}.md`), `Extra role text ${i}.\n`);
		write(join(project, ".pi/roles", `agent-${i * 5}.md`), `---\nmodel: ${models[i % 3]}\ncapability: read-write\n${file}---\nRole ${i}.\n`);
	}
	for (let i = 0; i < PERSONAS; i++) {
		const file = i % 2 === 0 ? `instructions_file: ../texts/persona-${i}.md\n` : "";
		if (file) write(join(project, ".pi/texts", `persona-${i}.md`), `Extra persona text ${i}.\n`);
		write(join(project, ".pi/personas", `persona-${i}.md`), `---\ndescription: Persona ${i}\nthinking: low\n${file}---\nBe persona ${i}.\n`);
	}
	write(join(project, ".pi/subagents.json"), JSON.stringify({ models: { "agent-3": "test/model-b" }, defaultMaxTurns: 40 }));
	return { project, agent, home };
}

function percentile(sorted: number[], p: number): number {
	return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

const root = mkdtempSync(join(tmpdir(), "cadre-bench-resolve-"));
try {
	const { project, agent, home } = generate(root);
	const loadStart = performance.now();
	const loaded = loadAll({ cwd: project, agentDir: agent, homeDir: home, projectTrusted: false });
	const loadMs = performance.now() - loadStart;
	const models = await createModelCatalog({ agentDir: agent });
	const requests: SpawnRequest[] = [
		{},
		{ thinking: "high" },
		{ persona: "persona-3", model: "test/model-a" },
		{ capability: "read-only", isolation: "none", max_turns: 10 },
		{ persona: "none", run_in_background: true },
	];
	const inputs: ResolveInput[] = [];
	for (let i = 0; i < DEFINITIONS; i++) {
		inputs.push({
			request: requests[i % requests.length] ?? {},
			type: `agent-${i}`,
			loaded,
			parent: { cwd: project, model: "test/parent-model", thinking: "medium", activeTools: ["read", "bash", "edit", "write"], toolUniverse: builtinToolNames(), repoRoot: project },
			models,
			reader: spawnReader,
		});
	}
	let refused = 0;
	for (let i = 0; i < WARMUP; i++) resolve(inputs[i % inputs.length] as ResolveInput);
	const times: number[] = [];
	for (let i = 0; i < SAMPLES; i++) {
		const input = inputs[i % inputs.length] as ResolveInput;
		const start = performance.now();
		const result = resolve(input);
		times.push(performance.now() - start);
		if (result.refused) refused++;
	}
	times.sort((a, b) => a - b);
	const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
	console.log(`project: ${DEFINITIONS} definitions, ${ROLES} roles, ${PERSONAS} personas (loaded in ${loadMs.toFixed(1)} ms, ${loaded.diagnostics.length} diagnostics)`);
	console.log(`resolve one request: ${SAMPLES} samples over ${DEFINITIONS} types, ${((refused / SAMPLES) * 100).toFixed(1)}% refused`);
	console.log(`  p50 ${percentile(times, 50).toFixed(4)} ms  p95 ${percentile(times, 95).toFixed(4)} ms  p99 ${percentile(times, 99).toFixed(4)} ms  mean ${mean.toFixed(4)} ms`);
	console.log(`  target ≤ 0.2 ms: ${percentile(times, 50) <= 0.2 ? "met" : "NOT met"} at p50, ${percentile(times, 95) <= 0.2 ? "met" : "NOT met"} at p95`);
} finally {
	rmSync(root, { recursive: true, force: true });
}
