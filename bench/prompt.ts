/**
 * Prompt benchmark (spec 03 "Measured property"): for a realistic parent prompt (the captured
 * `skills` fixture: pi's default prompt with a project AGENTS.md and two skills), how many bytes
 * sibling children share as a prefix (different types, personas, roles, tools), and how many a
 * child shares with its parent, with tokens estimated as chars/4; then assembly time p50/p95 on
 * the text and the structured path, against a floor measured in the same run (hashing the same
 * sections, the part of assembly no design can skip).
 *
 * Run: npm run bench:prompt [-- --runs 5000]
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assemblePrompt, sharedBoundary } from "../src/prompt/assemble.ts";
import { parentPromptOptionsFromPi, type PiPromptOptionsLike } from "../src/prompt/pi-options.ts";
import type { AssembledPrompt, ParentPrompt, PromptInput } from "../src/prompt/types.ts";
import type { EffectiveConfig } from "../src/resolve/types.ts";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 3000;
const FIXTURE = join(import.meta.dirname, "..", "test", "fixtures", "prompts", "skills");
const PI = "/usr/lib/node_modules/@earendil-works/pi-coding-agent";

const parentText = readFileSync(join(FIXTURE, "prompt.txt"), "utf8");
const raw = JSON.parse(readFileSync(join(FIXTURE, "options.json"), "utf8")) as PiPromptOptionsLike & { customPrompt: string | null; forceSystemPrompt: string | null };
const options = parentPromptOptionsFromPi(
	{ ...raw, customPrompt: raw.customPrompt ?? undefined, forceSystemPrompt: raw.forceSystemPrompt ?? undefined },
	{ readme: `${PI}/README.md`, docs: `${PI}/docs`, examples: `${PI}/examples` },
);

function config(overrides: Partial<EffectiveConfig>): EffectiveConfig {
	return {
		model: "test/model-a", reasoningEffort: "medium", capabilityMode: null, persona: null, personaInstructions: null,
		rolePrompt: null, rolePromptWarning: null, roleName: null, personaError: null, inputs: [], outputs: [], outputSchema: null, isolation: "none", copyUncommitted: false,
		tools: ["read", "bash", "edit", "write"], maxTurns: null, runInBackground: false, inheritContext: false, cwd: ".",
		standingInstructions: null, definition: { name: "general-purpose", source: "bundled" }, depth: 1, delegation: { allowed: false, subagents: "*", reason: "not delegating", maxDepth: 2 }, budget: { tokens: null, cost: null, time: null }, ...overrides,
	};
}

const SIBLINGS: Array<{ type: string; cfg: Partial<EffectiveConfig>; tools: string[] }> = [
	{ type: "general-purpose", cfg: {}, tools: ["read", "bash", "edit", "write"] },
	{ type: "explore", cfg: { standingInstructions: "Search the codebase fast and read-only.", capabilityMode: "read-only" }, tools: ["read", "grep", "find", "ls"] },
	{ type: "plan", cfg: { standingInstructions: "Plan the change; edit nothing." }, tools: ["read", "grep", "find", "ls"] },
	{ type: "reviewer", cfg: { standingInstructions: "Review the diff.", persona: "grace", personaInstructions: "Speak like Grace Hopper." }, tools: ["read", "bash"] },
	{ type: "reviewer", cfg: { standingInstructions: "Review the diff.", persona: "ada", personaInstructions: "Speak like Ada.", rolePrompt: "Be strict about tests." }, tools: ["read", "bash"] },
];

function input(parent: ParentPrompt, s: (typeof SIBLINGS)[number]): PromptInput {
	return {
		parent, parentCwd: "/work/project", childCwd: "/work/project", config: config({ ...s.cfg, tools: s.tools }), type: s.type,
		environment: { platform: "linux", gitBranch: "main" }, worktreeParentDir: null,
		toolGuidance: s.tools.map((t) => `- ${t}`), projectContext: null,
	};
}

function commonPrefixBytes(a: string, b: string): number {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	let i = 0;
	while (i < x.length && i < y.length && x[i] === y[i]) i++;
	return i;
}

/** Tokens estimated as chars/4 (spec 03) over the first `bytes` bytes of `text` (default: the parent prompt). */
const tokens = (bytes: number, text: string = parentText) => Math.round(Buffer.from(text).subarray(0, bytes).toString().length / 4);
const textParent: ParentPrompt = { kind: "text", text: parentText, source: null };
const children = SIBLINGS.map((s) => assemblePrompt(input(textParent, s)));

const pairs: Array<{ bytes: number; text: string }> = [];
for (let a = 0; a < children.length; a++) {
	const text = (children[a] as AssembledPrompt).text;
	for (let b = a + 1; b < children.length; b++) pairs.push({ bytes: commonPrefixBytes(text, (children[b] as AssembledPrompt).text), text });
}
pairs.sort((p, q) => p.bytes - q.bytes);
const least = pairs[0] as { bytes: number; text: string };
const most = pairs[pairs.length - 1] as { bytes: number; text: string };
const withParent = children.map((c) => commonPrefixBytes(c.text, parentText));
const boundary = sharedBoundary(children[0] as AssembledPrompt);
const lengths = children.map((c) => Buffer.byteLength(c.text));

console.log(`parent prompt (fixture skills): ${Buffer.byteLength(parentText)} bytes ≈ ${tokens(Buffer.byteLength(parentText))} tokens`);
console.log(`children: ${children.length} siblings (types ${[...new Set(SIBLINGS.map((s) => s.type))].join(", ")}), ${Math.min(...lengths)}–${Math.max(...lengths)} bytes`);
const firstChild = (children[0] as AssembledPrompt).text;
console.log(`sections 1–2 (identity + project context): ${boundary} bytes ≈ ${tokens(boundary, firstChild)} tokens`);
console.log(`shared prefix between siblings: min ${least.bytes} bytes ≈ ${tokens(least.bytes, least.text)} tokens, max ${most.bytes} bytes ≈ ${tokens(most.bytes, most.text)} tokens (${pairs.length} pairs)`);
console.log(`shared prefix child ↔ parent: ${Math.min(...withParent)} bytes ≈ ${tokens(Math.min(...withParent))} tokens (the parent's <tools> follows its preamble; the child's <docs> does)`);

function time(label: string, fn: () => void): void {
	for (let i = 0; i < 200; i++) fn();
	const samples: number[] = [];
	for (let i = 0; i < RUNS; i++) {
		const start = process.hrtime.bigint();
		fn();
		samples.push(Number(process.hrtime.bigint() - start) / 1e6);
	}
	samples.sort((a, b) => a - b);
	const q = (p: number) => (samples[Math.min(samples.length - 1, Math.floor(p * samples.length))] as number).toFixed(4);
	console.log(`${label.padEnd(40)} p50 ${q(0.5)} ms  p95 ${q(0.95)} ms  (${RUNS} runs)`);
}

const sibling = SIBLINGS[4] as (typeof SIBLINGS)[number];
const assembled = children[4] as AssembledPrompt;
const sectionTexts = assembled.sections.map((s) => Buffer.from(assembled.text).subarray(s.offset, s.offset + s.bytes).toString());
time("assemble, text parent", () => assemblePrompt(input(textParent, sibling)));
time("assemble, structured parent", () => assemblePrompt(input({ kind: "options", options }, sibling)));
time("assemble, no parent", () => assemblePrompt(input({ kind: "none" }, sibling)));
time("floor: sha256 of the same sections", () => {
	for (const text of sectionTexts) createHash("sha256").update(text).digest("hex");
});
