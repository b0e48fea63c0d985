/**
 * The tool names a definition's `tools` key writes, checked at load (ADR 0074): without a pi
 * session, a known tool is one of pi's built-ins, cadre's delegation tools (issue 21), or one settings `toolKinds` classifies (by name or
 * pattern); any other name is an `unknown-tool` warning at its entry, with the pi name another
 * tool's spelling stands for (`Read` → `read`, `Glob` → `find`) and how to silence it.
 */
import type { Diagnostic } from "../core/diagnostics.ts";
import { DELEGATION_TOOLS } from "../core/cadre-tools.ts";
import { matchesGlob, PI_TOOL_NAMES } from "../core/pi-tools.ts";
import { suggestToolNames } from "./foreign-keys.ts";
import type { RawValue } from "./raw.ts";
import type { ToolKind } from "./types.ts";

/** What the check needs to know about the file. */
export interface ToolNameContext {
	kind: string;
	file: string;
	name: string;
	toolKinds?: Readonly<Record<string, ToolKind>>;
}

/** Whether `name` is a pi built-in or an extension tool settings `toolKinds` classifies. */
export function isKnownTool(name: string, toolKinds: Readonly<Record<string, ToolKind>> = {}): boolean {
	if (PI_TOOL_NAMES.includes(name) || DELEGATION_TOOLS.includes(name) || Object.hasOwn(toolKinds, name)) return true;
	return Object.keys(toolKinds).some((pattern) => pattern.includes("*") && matchesGlob(pattern, name));
}

/** Adds an `unknown-tool` warning for every name in `names` (as `raw` wrote them) that is not known. */
export function checkToolNames(raw: RawValue, names: readonly string[], ctx: ToolNameContext, diagnostics: Diagnostic[]): void {
	if (ctx.kind !== "definition") return;
	const toolKinds = ctx.toolKinds ?? {};
	const known = [...PI_TOOL_NAMES, ...Object.keys(toolKinds).filter((pattern) => !pattern.includes("*"))];
	for (const name of names) {
		if (name.includes("*") || isKnownTool(name, toolKinds)) continue;
		const item = raw.items?.find((entry) => typeof entry.value === "string" && entry.value.trim() === name);
		const pos = item?.pos ?? raw.pos;
		const [suggestion] = suggestToolNames([name], known);
		diagnostics.push({
			severity: "warning",
			file: ctx.file,
			line: pos.line,
			column: pos.column,
			code: "unknown-tool",
			message: suggestion
				? `tool ${name} of ${ctx.kind} ${ctx.name} matches no pi tool — did you mean ${suggestion}?`
				: `tool ${name} of ${ctx.kind} ${ctx.name} is not a pi built-in tool, and no settings toolKinds entry names it`,
			hint: suggestion
				? `tool names are exact and case-sensitive: write ${suggestion}; if an extension provides ${name}, classify it in settings toolKinds to silence this`
				: `if an extension provides it, classify it in toolKinds of your user settings ({"${name}": "read"}, or "write" / "execute") to silence this; otherwise check the spelling`,
		});
	}
}
