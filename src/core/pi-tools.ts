/**
 * pi's built-in tools by name, and the one glob form tool names use (`*`, spec 04). Shared by the
 * loader (which checks the names a file writes) and the resolver (which selects and filters tools).
 */

/** pi's built-in tools in pi's order (`powershell` only where pi offers it). */
export function builtinToolNames(platform: NodeJS.Platform = process.platform): string[] {
	return platform === "win32"
		? ["read", "bash", "powershell", "edit", "write", "grep", "find", "ls"]
		: ["read", "bash", "edit", "write", "grep", "find", "ls"];
}

/** Every built-in tool name pi has on some platform: a file naming one is never misspelt. */
export const PI_TOOL_NAMES: readonly string[] = builtinToolNames("win32");

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
