/**
 * Which paths a parent tool call may write, for the escape check of worktree runs (spec 05): the
 * `path` of `edit` / `write`, resolved the way pi's tools resolve it (a leading `@` dropped, `~`
 * expanded, relative to the cwd), and the whole cwd for `bash` / `powershell`. Other tools write
 * nothing cadre can attribute.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** A tool path as pi's built-in tools resolve it (mirrors pi's unexported `resolveToCwd`). */
export function resolveToolPath(path: string, cwd: string, home: string = homedir()): string {
	const bare = path.startsWith("@") ? path.slice(1) : path;
	if (bare === "~") return home;
	if (bare.startsWith("~/")) return join(home, bare.slice(2));
	return isAbsolute(bare) ? bare : resolve(cwd, bare);
}

/** The path a parent tool call touches, or null when it writes nothing cadre can attribute. */
export function touchedPath(toolName: string, input: unknown, cwd: string, home?: string): string | null {
	const path = (input as { path?: unknown } | null)?.path;
	if ((toolName === "edit" || toolName === "write") && typeof path === "string") return resolveToolPath(path, cwd, home);
	if (toolName === "bash" || toolName === "powershell") return cwd;
	return null;
}
