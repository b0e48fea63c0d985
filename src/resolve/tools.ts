/**
 * The tools a child can have (spec 04 "Tools a child can have"): the universe, the definition's
 * selection from it, and the capability filter with its kind table. The runtime's call-time guard
 * uses `toolAllowed` on the same effective set, so selection and enforcement never disagree.
 */
import { matchesGlob } from "../core/pi-tools.ts";
import type { CapabilityMode } from "../core/values.ts";
import type { ToolKind, ToolRule } from "../files/types.ts";

export { builtinToolNames, matchesGlob } from "../core/pi-tools.ts";
export { suggestToolNames } from "../files/foreign-keys.ts";

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
export const MODE_KEEPS: Readonly<Record<CapabilityMode, ReadonlySet<ToolKind> | null>> = {
	"read-only": new Set<ToolKind>(["read"]),
	"read-write": new Set<ToolKind>(["read", "write"]),
	execute: new Set<ToolKind>(["read", "execute"]),
	all: null,
};

/**
 * The kind of a tool: built-ins from the fixed table, tools that call tools are unknown, others
 * from the first matching `toolKinds` glob (exact names before globs), else unknown (null).
 */
export function toolKind(name: string, toolKinds: Readonly<Record<string, ToolKind>> = {}): ToolKind | null {
	const builtin = Object.hasOwn(BUILTIN_TOOL_KINDS, name) ? BUILTIN_TOOL_KINDS[name] : undefined;
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

/**
 * Applies a definition's tool rules (read from another tool's keys, ADR 0072): within one key's
 * rules (one `set`) the last rule whose pattern matches a tool decides whether it stays, and a
 * tool no rule matches stays; a tool stays only when every set keeps it. Rules only ever take
 * tools away: an `allow` rule keeps a tool an earlier rule of its set denied, it never adds one.
 */
export function applyToolRules(tools: readonly string[], rules: readonly ToolRule[]): string[] {
	const sets = [...new Set(rules.map((rule) => rule.set ?? 0))];
	return tools.filter((tool) =>
		sets.every((set) => {
			let keep = true;
			for (const rule of rules) if ((rule.set ?? 0) === set && matchesGlob(rule.pattern, tool)) keep = rule.allow;
			return keep;
		}),
	);
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
	/** ADR 0150: the child's bash runs in the OS sandbox, where it cannot write outside its roots. */
	sandboxedShell = false,
): CapabilityFilterResult {
	const keeps = mode === null ? null : MODE_KEEPS[mode];
	if (keeps === null) return { tools: [...tools], droppedUnknown: [], droppedKnown: [] };
	const result: CapabilityFilterResult = { tools: [], droppedUnknown: [], droppedKnown: [] };
	for (const tool of tools) {
		const kind = sandboxedShell && tool === "bash" ? "read" : toolKind(tool, toolKinds);
		if (kind !== null && keeps.has(kind)) result.tools.push(tool);
		else if (kind === null) result.droppedUnknown.push(tool);
		else result.droppedKnown.push(tool);
	}
	return result;
}
