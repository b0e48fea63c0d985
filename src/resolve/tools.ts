/**
 * The tools a child can have (spec 04 "Tools a child can have"): the universe, the definition's
 * selection from it, and the capability filter with its kind table. The runtime's call-time guard
 * uses `toolAllowed` on the same effective set, so selection and enforcement never disagree.
 */
import type { CapabilityMode } from "../core/values.ts";
import type { ToolKind } from "../files/types.ts";

/** pi's built-in tools in pi's order (`powershell` only where pi offers it). */
export function builtinToolNames(platform: NodeJS.Platform = process.platform): string[] {
	return platform === "win32"
		? ["read", "bash", "powershell", "edit", "write", "grep", "find", "ls"]
		: ["read", "bash", "edit", "write", "grep", "find", "ls"];
}

/** pi's default active tools, what `explain` assumes the parent has without `--parent-tools`. */
export const DEFAULT_PARENT_TOOLS: readonly string[] = ["read", "bash", "edit", "write"];

/** The fixed kinds of pi's built-in tools. Settings `toolKinds` never reclassify these. */
export const BUILTIN_TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
	read: "read",
	grep: "read",
	find: "read",
	ls: "read",
	edit: "write",
	write: "write",
	bash: "execute",
	powershell: "execute",
};

/**
 * Tools that call other tools (pi's code-mode and tool-search): they count as unknown whatever
 * `toolKinds` says, because what they reach is decided at call time.
 */
export const TOOLS_THAT_CALL_TOOLS: ReadonlySet<string> = new Set(["codemode", "tool_search"]);

/** The kinds each capability mode keeps; null means every selected tool is kept. */
const MODE_KEEPS: Record<CapabilityMode, ReadonlySet<ToolKind> | null> = {
	"read-only": new Set<ToolKind>(["read"]),
	"read-write": new Set<ToolKind>(["read", "write"]),
	execute: new Set<ToolKind>(["read", "execute"]),
	all: null,
};

/** Whether `name` matches a `*` glob (the only wildcard; every other character is literal). */
export function matchesGlob(pattern: string, name: string): boolean {
	if (!pattern.includes("*")) return pattern === name;
	const parts = pattern.split("*");
	const first = parts[0] ?? "";
	const last = parts[parts.length - 1] ?? "";
	if (!name.startsWith(first) || name.length < first.length + last.length || !name.endsWith(last)) return false;
	let at = first.length;
	const end = name.length - last.length;
	for (let i = 1; i < parts.length - 1; i++) {
		const part = parts[i] ?? "";
		const found = name.indexOf(part, at);
		if (found < 0 || found + part.length > end) return false;
		at = found + part.length;
	}
	return true;
}

/**
 * The kind of a tool: built-ins from the fixed table, tools that call tools are unknown, others
 * from the first matching `toolKinds` glob (exact names before globs), else unknown (null).
 */
export function toolKind(name: string, toolKinds: Readonly<Record<string, ToolKind>> = {}): ToolKind | null {
	const builtin = BUILTIN_TOOL_KINDS[name];
	if (builtin) return builtin;
	if (TOOLS_THAT_CALL_TOOLS.has(name)) return null;
	const exact = Object.hasOwn(toolKinds, name) ? toolKinds[name] : undefined;
	if (exact) return exact;
	for (const [pattern, kind] of Object.entries(toolKinds)) if (pattern.includes("*") && matchesGlob(pattern, name)) return kind;
	return null;
}

/** The outcome of selecting tools from the universe. */
export interface ToolSelection {
	/** Selected names: list order, globs expanded in universe order, duplicates removed. */
	tools: string[];
	/** Names (and globs matching nothing) that are not in the universe. */
	unavailable: string[];
}

/** Selects `names` (exact names and `*` globs) from `universe`; `all` is every tool, `none` none. */
export function selectTools(names: "all" | "none" | readonly string[], universe: readonly string[]): ToolSelection {
	if (names === "all") return { tools: [...new Set(universe)], unavailable: [] };
	if (names === "none") return { tools: [], unavailable: [] };
	const inUniverse = new Set(universe);
	const seen = new Set<string>();
	const tools: string[] = [];
	const unavailable: string[] = [];
	for (const name of names) {
		if (name.includes("*")) {
			const matched = universe.filter((tool) => matchesGlob(name, tool));
			if (matched.length === 0) unavailable.push(name);
			for (const tool of matched) if (!seen.has(tool)) seen.add(tool), tools.push(tool);
		} else if (!inUniverse.has(name)) {
			if (!unavailable.includes(name)) unavailable.push(name);
		} else if (!seen.has(name)) {
			seen.add(name);
			tools.push(name);
		}
	}
	return { tools, unavailable };
}

/** The outcome of the capability filter. */
export interface CapabilityFilterResult {
	tools: string[];
	/** Unknown-kind tools removed by the mode (each gets a `tool-dropped` warning). */
	droppedUnknown: string[];
	/** Known-kind tools removed by the mode (no diagnostic). */
	droppedKnown: string[];
}

/** Applies a capability mode to selected tools; `null` (unset) and `all` keep everything. */
export function filterByCapability(
	tools: readonly string[],
	mode: CapabilityMode | null,
	toolKinds: Readonly<Record<string, ToolKind>> = {},
): CapabilityFilterResult {
	const keeps = mode === null ? null : MODE_KEEPS[mode];
	if (keeps === null) return { tools: [...tools], droppedUnknown: [], droppedKnown: [] };
	const result: CapabilityFilterResult = { tools: [], droppedUnknown: [], droppedKnown: [] };
	for (const tool of tools) {
		const kind = toolKind(tool, toolKinds);
		if (kind !== null && keeps.has(kind)) result.tools.push(tool);
		else if (kind === null) result.droppedUnknown.push(tool);
		else result.droppedKnown.push(tool);
	}
	return result;
}

/** Claude Code's tool names whose pi counterpart is not just the lower-case spelling. */
const FOREIGN_TOOL_NAMES: Record<string, string> = { Glob: "find", LS: "ls", MultiEdit: "edit" };

/**
 * What to write instead of tool names that are not in the universe: the same name in another case,
 * or the pi tool a Claude Code name stands for. Names with no counterpart are left out.
 */
export function suggestToolNames(unavailable: readonly string[], universe: readonly string[]): string[] {
	const suggestions: string[] = [];
	for (const name of unavailable) {
		const target = universe.find((tool) => tool.toLowerCase() === name.toLowerCase()) ?? FOREIGN_TOOL_NAMES[name];
		if (target && universe.includes(target) && !suggestions.includes(target)) suggestions.push(target);
	}
	return suggestions;
}
