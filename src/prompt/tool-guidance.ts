/**
 * The child's own tool guidance for the header (spec 03 section 3). A child's prompt is a custom
 * prompt to pi, and with a custom prompt pi writes no tool list and no rules, so the header is where
 * the child learns its tools: pi's one-line snippet per effective tool and pi's per-tool guideline
 * bullets, built the way pi builds `<tools>` and `<rules>` — but only for the child's tools, never
 * the parent's list, and never the parent's custom guidelines (which carry its spawn-tool guidance).
 */

/** What pi knows about its tools: `toolSnippets` and `toolGuidelines` of the prompt options. */
export interface ToolGuidanceSource {
	/** One-line description per tool name. */
	snippets: Readonly<Record<string, string>>;
	/** Guideline bullets per tool name. */
	guidelines: Readonly<Record<string, readonly string[]>>;
}

/** pi's closing rules, which do not depend on any tool. */
const GENERAL_RULES = ["Be concise in your responses", "Show file paths clearly when working with files"];

/**
 * Header lines for the child's effective `tools` (in the child's order): "Your tools:" with one
 * `- name: snippet` line per tool pi has a snippet for, then "Guidelines:" with pi's rule bullets
 * for those tools (deduplicated, in pi's order). Empty tools → a single line saying so.
 */
export function toolGuidanceLines(tools: readonly string[], source: ToolGuidanceSource): string[] {
	if (tools.length === 0) return ["You have no tools in this session."];
	const described = tools.filter((name) => Boolean(source.snippets[name]));
	const lines = ["Your tools:", ...described.map((name) => `- ${name}: ${source.snippets[name]}`)];
	const undescribed = tools.filter((name) => !source.snippets[name]);
	if (undescribed.length > 0) lines.push(`- also: ${undescribed.join(", ")}`);
	const rules: string[] = [];
	const add = (rule: string) => {
		const trimmed = rule.trim();
		if (trimmed && !rules.includes(trimmed)) rules.push(trimmed);
	};
	const has = (name: string) => tools.includes(name);
	if ((has("bash") || has("powershell")) && !has("grep") && !has("find") && !has("ls")) {
		if (has("bash") && has("powershell")) add("Use bash or PowerShell for file operations like listing, searching, and finding files");
		else if (has("powershell")) add("Use PowerShell for file operations like listing, searching, and finding files");
		else add("Use bash for file operations like ls, rg, find");
	}
	for (const name of tools) for (const rule of source.guidelines[name] ?? []) add(rule);
	for (const rule of GENERAL_RULES) add(rule);
	lines.push("", "Guidelines:", ...rules.map((rule) => `- ${rule}`));
	return lines;
}
