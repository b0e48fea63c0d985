/**
 * The tool names a definition's `tools` key writes, checked at load (ADR 0074): without a pi
 * session, a known tool is one of pi's built-ins, cadre's delegation tools (issue 21), or one settings `toolKinds` classifies (by name or
 * pattern); the other names of one key are one `unknown-tool` warning at the first of them (ADR 0105),
 * with the pi name another tool's spelling stands for (`Read` → `read`, `Glob` → `find`) and how to
 * silence it.
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

/** How many names a grouped `unknown-tool` message spells out before "and N more". */
const SHOWN = 5;

/** One unknown name and the pi tool its spelling stands for, if any. */
interface Unknown {
	name: string;
	suggestion: string | undefined;
}

/**
 * Adds one `unknown-tool` warning for the names in `names` (as `raw` wrote them) that are not known,
 * at the first of them: one name is spelt out with its hint; several are counted, the first few
 * named (each with pi's name when it is another tool's spelling), so a long MCP list is one warning.
 */
export function checkToolNames(raw: RawValue, names: readonly string[], ctx: ToolNameContext, diagnostics: Diagnostic[]): void {
	if (ctx.kind !== "definition") return;
	const toolKinds = ctx.toolKinds ?? {};
	const known = [...PI_TOOL_NAMES, ...Object.keys(toolKinds).filter((pattern) => !pattern.includes("*"))];
	const unknown: Unknown[] = names.filter((name) => !name.includes("*") && !isKnownTool(name, toolKinds)).map((name) => ({ name, suggestion: suggestToolNames([name], known)[0] }));
	const first = unknown[0];
	if (!first) return;
	const item = raw.items?.find((entry) => typeof entry.value === "string" && entry.value.trim() === first.name);
	const pos = item?.pos ?? raw.pos;
	const at = { severity: "warning", file: ctx.file, line: pos.line, column: pos.column, code: "unknown-tool" } as const;
	diagnostics.push({ ...at, ...(unknown.length === 1 ? oneUnknown(first, ctx) : severalUnknown(unknown, ctx)) });
}

function oneUnknown({ name, suggestion }: Unknown, ctx: ToolNameContext): { message: string; hint: string } {
	return {
		message: suggestion
			? `tool ${name} of ${ctx.kind} ${ctx.name} matches no pi tool — did you mean ${suggestion}?`
			: `tool ${name} of ${ctx.kind} ${ctx.name} is not a pi built-in tool, and no settings toolKinds entry names it`,
		hint: suggestion
			? `tool names are exact and case-sensitive: write ${suggestion}; if an extension provides ${name}, classify it in settings toolKinds to silence this`
			: `if an extension provides it, classify it in toolKinds of your user settings ({"${name}": "read"}, or "write" / "execute") to silence this; otherwise check the spelling`,
	};
}

function severalUnknown(unknown: readonly Unknown[], ctx: ToolNameContext): { message: string; hint: string } {
	const shown = unknown.slice(0, SHOWN).map(({ name, suggestion }) => (suggestion ? `${name} (did you mean ${suggestion}?)` : name));
	const more = unknown.length > SHOWN ? ` and ${unknown.length - SHOWN} more` : "";
	const suggested = [...new Set(unknown.flatMap((u) => (u.suggestion ? [u.suggestion] : [])))];
	const others = unknown.filter((u) => !u.suggestion).map((u) => u.name);
	const hints: string[] = [];
	if (suggested.length > 0) hints.push(`tool names are exact and case-sensitive: write ${suggested.join(", ")}`);
	if (others.length > 0) {
		const entries = toolKindsEntries(others).map((pattern) => `"${pattern}": "read"`);
		hints.push(`if an extension provides the others, classify them in toolKinds of your user settings ({${entries.join(", ")}}, or "write" / "execute") to silence this; otherwise check the spelling`);
	}
	return { message: `${unknown.length} tools of ${ctx.kind} ${ctx.name} match no pi tool: ${shown.join(", ")}${more}`, hint: hints.join("; ") };
}

/** The toolKinds keys that would classify `names`: one `mcp__<server>__*` per MCP server, the first other name as itself. */
function toolKindsEntries(names: readonly string[]): string[] {
	const servers = new Set<string>();
	const plain: string[] = [];
	for (const name of names) {
		const server = /^(mcp__.+?__)./.exec(name)?.[1];
		if (server) servers.add(`${server}*`);
		else plain.push(name);
	}
	return [...servers, ...plain.slice(0, 1)].slice(0, 3);
}
