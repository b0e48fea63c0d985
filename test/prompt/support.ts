/**
 * Shared helpers for the prompt tests: the captured fixtures and a plain effective config.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parentPromptOptionsFromPi, type PiPromptOptionsLike } from "../../src/prompt/pi-options.ts";
import type { ParentPromptOptions } from "../../src/prompt/types.ts";
import type { EffectiveConfig } from "../../src/resolve/types.ts";

export const FIXTURES = join(import.meta.dirname, "..", "fixtures", "prompts");

/** The placeholder paths the capture script writes (scripts/capture-prompts.ts). */
export const PI_PACKAGE = "/usr/lib/node_modules/@earendil-works/pi-coding-agent";
export const PROJECT = "/work/project";
export const DOC_PATHS = { readme: `${PI_PACKAGE}/README.md`, docs: `${PI_PACKAGE}/docs`, examples: `${PI_PACKAGE}/examples` };

export interface Fixture {
	name: string;
	text: string;
	/** pi's options as captured (JSON: absent optional strings are null). */
	raw: PiPromptOptionsLike & { customPrompt?: string | null; forceSystemPrompt?: string | null };
	options: ParentPromptOptions;
}

export function fixtureNames(): string[] {
	return readdirSync(FIXTURES).sort();
}

export function loadFixture(name: string): Fixture {
	const text = readFileSync(join(FIXTURES, name, "prompt.txt"), "utf8");
	const raw = JSON.parse(readFileSync(join(FIXTURES, name, "options.json"), "utf8")) as Fixture["raw"];
	const options = parentPromptOptionsFromPi(
		{ ...raw, customPrompt: raw.customPrompt ?? undefined, forceSystemPrompt: raw.forceSystemPrompt ?? undefined },
		DOC_PATHS,
	);
	return { name, text, raw, options };
}

export function config(overrides: Partial<EffectiveConfig> = {}): EffectiveConfig {
	return {
		model: "test/model-a",
		reasoningEffort: "medium",
		capabilityMode: null,
		persona: null,
		personaInstructions: null,
		rolePrompt: null,
		rolePromptWarning: null,
		roleName: null,
		personaError: null,
		inputs: [],
		outputs: [],
		outputSchema: null,
		isolation: "none",
		copyUncommitted: false,
		tools: ["read", "bash", "edit", "write"],
		maxTurns: null,
		runInBackground: false,
		inheritContext: false,
		cwd: ".",
		standingInstructions: null,
		definition: { name: "general-purpose", source: "bundled" },
		depth: 1,
		delegation: { allowed: false, subagents: "*", reason: "not delegating", maxDepth: 2 },
		budget: { tokens: null, cost: null, time: null },
		...overrides,
	};
}
