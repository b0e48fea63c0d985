/**
 * The child's tools (spec 02 "Tools"): the definition's selection (or the parent's active tools)
 * inside the tool universe, then the capability filter, each dropped name a warning at its key.
 */
import { SUBAGENT_TOOL } from "../core/cadre-tools.ts";
import type { CapabilityMode } from "../core/values.ts";
import type { ResolutionContext } from "./context.ts";
import { withoutDelegationTools } from "./delegation.ts";
import { derived, positionOf, show } from "./slots.ts";
import { applyToolRules, filterByCapability, selectTools, suggestToolNames } from "./tools.ts";
import type { TraceEntry } from "./types.ts";

function toolNameHint(unavailable: readonly string[], universe: readonly string[]): string {
	const suggested = suggestToolNames(unavailable, universe);
	const exact = "tool names are exact and case-sensitive";
	if (suggested.length > 0) return `did you mean ${suggested.join(", ")}? (${exact})`;
	return `check the spelling (${exact}) or load the extension that provides it`;
}

/**
 * The tools trace; `capability` is the resolved mode and where it came from. The delegation tools
 * are never selected here (nor inherited from the parent): `namesSubagent` says whether the
 * definition's list named `subagent`, and the delegation step adds them (issue 21).
 */
export function resolveTools(
	ctx: ResolutionContext,
	capability: { mode: CapabilityMode | null; source: string; asked?: CapabilityMode | null },
	sandboxed = false,
): { trace: TraceEntry; namesSubagent: boolean; asked: string[] | null } {
	const { definition, input } = ctx;
	const loaded = input.loaded;
	const parent = { ...input.parent, activeTools: withoutDelegationTools(input.parent.activeTools), toolUniverse: withoutDelegationTools(input.parent.toolUniverse) };
	const toolKinds = input.toolKinds ?? loaded.settings.toolKinds;
	const toolsKey = definition.keys.tools;
	const rejected = definition.invalid.tools;
	if (!toolsKey && rejected) {
		// Without a readable list the child would get the parent's tools: more than the file asked for (ADR 0064).
		ctx.refusals.add(
			"restriction-unread",
			`tools ${show(rejected.raw)} of "${definition.name}" (${rejected.source}) cannot be read, so cadre cannot honour the selection it asks for; fix the list (or write \`none\`) rather than run the child with the parent's tools`,
		);
	}
	const written = toolsKey ? toolsKey.value : null;
	const namesSubagent = Array.isArray(written) && written.includes(SUBAGENT_TOOL);
	const listed = Array.isArray(written) ? withoutDelegationTools(written) : (written ?? parent.activeTools);
	// ADR 0185: a built-in read-only type (explore, plan) gets bash when it runs sandboxed and read-only.
	const bundledBash = capability.mode === "read-only" && toolsKey?.source === "bundled" && Array.isArray(written) && !listed.includes("bash") && parent.toolUniverse.includes("bash");
	const sandboxedList = bundledBash ? [...listed, "bash"] : listed;
	const selection = selectTools(sandboxed ? sandboxedList : listed, parent.toolUniverse);
	if (selection.unavailable.length > 0) {
		ctx.diagnostics.add("tools", {
			severity: "warning",
			...positionOf(toolsKey ? toolsKey.source : null),
			code: "tool-unavailable",
			message: `${toolsKey ? `tools of "${definition.name}"` : "the parent's active tools"} name${selection.unavailable.length === 1 ? "s" : ""} ${selection.unavailable.map(show).join(", ")}, not among the available tools (${parent.toolUniverse.join(", ")}); dropped`,
			hint: toolNameHint(selection.unavailable, parent.toolUniverse),
		});
	}
	// Rules read from another tool's deny list or tool map (ADR 0072) only take tools away.
	const rules = definition.keys.tool_rules;
	const ruled = (tools: string[]) => (rules ? applyToolRules(tools, rules.value) : tools);
	const allowed = ruled(selection.tools);
	const filtered = filterByCapability(allowed, capability.mode, toolKinds, sandboxed);
	if (filtered.droppedUnknown.length > 0) {
		ctx.diagnostics.add("tools", {
			severity: "warning",
			...positionOf(capability.source),
			code: "tool-dropped",
			message: `capability "${capability.mode}" drops ${filtered.droppedUnknown.map(show).join(", ")}: ${filtered.droppedUnknown.length === 1 ? "its kind is" : "their kind is"} unknown`,
			hint: 'classify extension tools with settings "toolKinds" ({"pattern": "read" | "write" | "execute"})',
		});
	}
	const trace: TraceEntry = toolsKey ? derived(filtered.tools, "definition", toolsKey.source) : derived(filtered.tools, "parent", "parent");
	// What only the want of a sandbox dropped (bash of a read-only child): explain and the tool description say so.
	if (!sandboxed) {
		const inSandbox = ruled(selectTools(sandboxedList, parent.toolUniverse).tools);
		const unsandboxed = filterByCapability(inSandbox, capability.mode, toolKinds, true).tools.filter((tool) => !filtered.tools.includes(tool));
		if (unsandboxed.length > 0) trace.unsandboxed = unsandboxed;
	}
	// Under a spawner's narrower capability: what the child's own mode would have kept, for the trace.
	const asked = capability.asked === undefined ? null : filterByCapability(allowed, capability.asked, toolKinds, sandboxed).tools;
	return { trace, namesSubagent, asked };
}
