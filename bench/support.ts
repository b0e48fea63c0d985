/**
 * What the pi benches share: an isolated, offline environment (HOME, agent dir and TMPDIR under a
 * fresh temp root, set on import, before pi is loaded), a resource loader for bare child sessions
 * (the floor: no extensions, skills or context files), timing helpers.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The bench's temp root; HOME, PI_CODING_AGENT_DIR and TMPDIR live under it. */
export const benchRoot = mkdtempSync(join(tmpdir(), "cadre-bench-"));
for (const [name, dir] of [
	["HOME", "home"],
	["PI_CODING_AGENT_DIR", "agent"],
	["TMPDIR", "tmp"],
] as const) {
	mkdirSync(join(benchRoot, dir), { recursive: true });
	process.env[name] = join(benchRoot, dir);
}
process.env.PI_OFFLINE = "1";
process.env.PI_TELEMETRY = "0";
// pi is loaded only after the environment above is in place.
const { createExtensionRuntime } = await import("@earendil-works/pi-coding-agent");

export const now = () => performance.now();
export const ms = (value: number) => `${value.toFixed(2)} ms`;

/** A prebuilt resource loader for a bare child session with the given system prompt. */
export function bareLoader(systemPrompt: string) {
	return {
		getExtensions: () => ({ extensions: [], errors: [], runtime: createExtensionRuntime() }),
		getSkills: () => ({ skills: [], diagnostics: [] }),
		getPrompts: () => ({ prompts: [], diagnostics: [] }),
		getThemes: () => ({ themes: [], diagnostics: [] }),
		getAgentsFiles: () => ({ agentsFiles: [] }),
		getSystemPrompt: () => systemPrompt,
		getSystemPromptSource: () => undefined,
		getAppendSystemPrompt: () => [],
		getAppendSystemPromptSources: () => [],
		extendResources: () => {},
		reload: async () => {},
	};
}
