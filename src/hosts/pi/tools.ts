/**
 * The three tools the parent model sees (spec 04 "Tools the parent model sees"): their typebox
 * schemas and compact descriptions. The `subagent` description lists the enabled types and the
 * personas from the loaded files; it is rebuilt when they change.
 */
import { Type } from "typebox";
import type { Entry, LoadResult } from "../../files/types.ts";
import { enabledTypes, resolve } from "../../resolve/resolve.ts";
import { builtinToolNames } from "../../resolve/tools.ts";
import type { ModelCatalog, SandboxPlatform, SpawnReader } from "../../resolve/types.ts";

export { RESULT_TOOL, SPAWN_TOOLS, STEER_TOOL, SUBAGENT_TOOL } from "../spawn/tool-names.ts";

export const subagentParameters = Type.Object({
	prompt: Type.String({ description: "The complete task; the sub-agent sees nothing else" }),
	description: Type.String({ description: "3-5 words" }),
	subagent_type: Type.Optional(Type.String({ description: "Default general-purpose" })),
	model: Type.Optional(Type.String()),
	thinking: Type.Optional(Type.String({ description: "off|minimal|low|medium|high|xhigh" })),
	capability: Type.Optional(Type.String({ description: "read-only|read-write|execute|all" })),
	persona: Type.Optional(Type.String({ description: "Persona name, or none" })),
	isolation: Type.Optional(Type.String({ description: "none|worktree" })),
	copy_uncommitted: Type.Optional(Type.Boolean({ description: "worktree only: start from your uncommitted changes too" })),
	cwd: Type.Optional(Type.String()),
	workspace: Type.Optional(Type.String({ description: "A settings workspace to run tools on (default local)" })),
	max_turns: Type.Optional(Type.Integer({ minimum: 1 })),
	run_in_background: Type.Optional(Type.Boolean()),
	inherit_context: Type.Optional(Type.Boolean({ description: "Pass this conversation along" })),
	resume: Type.Optional(Type.String({ description: "Id of a finished run to continue" })),
	inputs: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The persona's inputs by name" })),
	output_schema: Type.Optional(Type.Unknown({ description: "JSON Schema; the child returns a matching structured result" })),
	budget: Type.Optional(
		Type.Object(
			{
				tokens: Type.Optional(Type.Integer({ minimum: 1, description: "input + output + cache tokens" })),
				cost: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "US dollars" })),
				time: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "seconds of wall time" })),
			},
			{ description: "Spending limit; reserved from your own budget, the child stops at it" },
		),
	),
});

export const resultParameters = Type.Object({
	agent_id: Type.Union([Type.String(), Type.Array(Type.String())]),
	wait: Type.Optional(Type.Boolean({ description: "Block until finished (default false)" })),
	timeout: Type.Optional(Type.Number({ description: "Seconds to wait" })),
	verbose: Type.Optional(Type.Boolean({ description: "Every field, not only what differs from the defaults" })),
});

export const steerParameters = Type.Object({
	agent_id: Type.String(),
	message: Type.String(),
});

export const RESULT_DESCRIPTION =
	"Get the status or result of sub-agents by id. wait: true blocks until they finish; a timed-out wait reports progress and never stops them.";

export const STEER_DESCRIPTION = "Send a message to a running sub-agent; it arrives after its current tool call (buffered while queued).";

function oneLine(text: string | undefined, max = 90): string {
	const line = (text ?? "").replace(/\s+/g, " ").trim();
	return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Every model name counts as known and no file is read: the description shows what files name. */
const AS_WRITTEN: ModelCatalog = { lookup: (name) => ({ ok: true, id: name }), clampThinking: (_id, level) => level };
const NO_READS: SpawnReader = { read: () => ({ ok: true, text: "" }), isDirectory: () => false, locate: () => null };

/** What the files give a type: its model and capability, and what bash is to a read-only one (ADR 0185). */
interface FromFiles {
	model: string | null;
	capability: string | null;
	/** A read-only type: bash kept in the sandbox, or dropped for want of one; null otherwise. */
	bash: "sandboxed" | "dropped" | null;
}

/**
 * The model and capability mode the files give a type, through the resolver (its one precedence:
 * role > persona > pin > definition), for a request that names nothing, on this platform's
 * sandbox. The model only when a file or pin names one (not inherited from the parent).
 */
function fromFiles(loaded: LoadResult, name: string, sandbox?: SandboxPlatform): FromFiles {
	let result: ReturnType<typeof resolve>;
	try {
		result = resolve({
			request: {},
			type: name,
			loaded,
			parent: { cwd: loaded.projectDir ?? "/", model: null, thinking: "off", activeTools: [], toolUniverse: builtinToolNames(), sandbox },
			models: AS_WRITTEN,
			reader: NO_READS,
			toolKinds: loaded.settings.toolKinds,
		});
	} catch {
		return { model: null, capability: null, bash: null };
	}
	const model = result.trace.model;
	const named = model && model.layer !== "parent" && model.layer !== "default" && typeof model.value === "string";
	const capability = result.config?.capabilityMode ?? null;
	const kept = result.config?.tools.includes("bash") === true;
	const dropped = result.trace.tools?.unsandboxed?.includes("bash") === true;
	const bash = capability !== "read-only" ? null : kept ? "sandboxed" : dropped ? "dropped" : null;
	return { model: named ? (model.value as string) : null, capability, bash };
}

/**
 * `read, grep, find, ls` / `parent's tools` (unset: the parent's active tools) / `all tools` /
 * `no tools`, plus the capability mode when set.
 */
function toolsShort(entry: Entry<"definition">, capability: string | null, bash: FromFiles["bash"]): string {
	const tools = entry.keys.tools?.value;
	const list = tools === undefined ? "parent's tools" : tools === "all" ? "all tools" : tools === "none" ? "no tools" : tools.join(", ");
	const shown = capability && capability !== "all" ? `${list}; ${capability}` : list;
	if (bash === "sandboxed") return `${shown}; bash in the OS sandbox, read-only`;
	return bash === "dropped" ? `${shown}; no bash: no OS sandbox here` : shown;
}

/**
 * The `subagent` tool description: what it does, enabled types and personas, compactly. `only`
 * (a delegating child's `spawnableTypes`, issue 21) limits the types listed to those it may spawn;
 * `sandbox` (this platform's) says whether a read-only type keeps bash.
 */
export function subagentDescription(loaded: LoadResult | null, only?: readonly string[], sandbox?: SandboxPlatform): string {
	const lines = [
		"Delegate a task to a sub-agent in its own session. Foreground returns its result; run_in_background returns an id at once (you are notified when it finishes; or call get_subagent_result). resume: <id> continues a finished run. Results omit defaults; get_subagent_result verbose: true shows all.",
	];
	if (loaded) {
		const types = enabledTypes(loaded)
			.filter((name) => only === undefined || only.includes(name))
			.map((name) => loaded.definitions.get(name.toLowerCase()))
			.filter((entry): entry is Entry<"definition"> => entry !== undefined);
		if (types.length > 0) {
			lines.push("Types:");
			for (const entry of types) {
				const { model, capability, bash } = fromFiles(loaded, entry.name, sandbox);
				lines.push(`- ${entry.name}: ${oneLine(entry.keys.description?.value)} (${toolsShort(entry, capability, bash)}${model ? `; model ${model}` : ""})`);
			}
		}
		const personas = [...loaded.personas.values()];
		if (personas.length > 0) {
			lines.push("Personas:");
			for (const persona of personas) {
				const inputs = (persona.keys.inputs?.value ?? []).map((io) => `${io.name}: ${io.io_type}${io.required ? " (required)" : ""}`);
				const outputs = (persona.keys.outputs?.value ?? []).map((io) => `${io.name}: ${io.io_type}`);
				const io = [inputs.length ? `expects ${inputs.join(", ")}` : "", outputs.length ? `produces ${outputs.join(", ")}` : ""]
					.filter(Boolean)
					.join("; ");
				lines.push(`- ${persona.name}: ${oneLine(persona.keys.description?.value)}${io ? ` (${io})` : ""}`);
			}
		}
	}
	return lines.join("\n");
}
