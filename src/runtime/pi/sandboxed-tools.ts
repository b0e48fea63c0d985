/**
 * A sandboxed child's tools (ADR 0150): pi's own bash, read, write, edit, grep, find and ls, built
 * with pi's `operations` so every call goes through the child's policy. bash runs each command in
 * the child's one long-lived sandboxed shell (ADR 0195) with a scrubbed environment; the
 * file tools judge every path by its real path ({@link PathGuard}). Given to pi as the session's
 * custom tools, they replace the built-ins of the same name.
 */
import { constants } from "node:fs";
import { access, glob, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import {
	createBashToolDefinition,
	createEditToolDefinition,
	createFindToolDefinition,
	createGrepToolDefinition,
	createLsToolDefinition,
	createReadToolDefinition,
	createWriteToolDefinition,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import type { SandboxPolicy } from "../../resolve/sandbox-policy.ts";
import type { SandboxShell } from "../../sandbox/sandbox-shell.ts";
import type { PathGuard } from "../../sandbox/path-guard.ts";

/** What the tools of one sandboxed child are built from. */
export interface SandboxToolsOptions {
	cwd: string;
	/** The child's tool names: only these are built. */
	tools: readonly string[];
	policy: SandboxPolicy;
	/** The child's long-lived sandboxed shell every bash call runs in (ADR 0195). */
	bash: SandboxShell;
	guard: PathGuard;
}

const IMAGE_MAGIC: [string, number[]][] = [
	["image/png", [0x89, 0x50, 0x4e, 0x47]],
	["image/jpeg", [0xff, 0xd8, 0xff]],
	["image/gif", [0x47, 0x49, 0x46, 0x38]],
];

async function imageType(path: string): Promise<string | null> {
	const head = (await readFile(path)).subarray(0, 12);
	for (const [type, magic] of IMAGE_MAGIC) if (magic.every((byte, i) => head[i] === byte)) return type;
	if (head.subarray(0, 4).toString() === "RIFF" && head.subarray(8, 12).toString() === "WEBP") return "image/webp";
	return null;
}

/** A tool path as pi resolves it (`@` prefix, `~`), absolute. */
function toolPath(path: unknown, cwd: string): string {
	let raw = typeof path === "string" && path.trim() !== "" ? path.trim() : ".";
	if (raw.startsWith("@")) raw = raw.slice(1);
	if (raw === "~" || raw.startsWith("~/")) raw = join(process.env.HOME ?? homedir(), raw.slice(1));
	return isAbsolute(raw) ? resolve(raw) : resolve(cwd, raw);
}

/** grep and find run pi's own search (rg, fd) in the parent's process: the search root is judged first. */
function guardedSearch<T extends ToolDefinition>(tool: T, name: string, cwd: string, guard: PathGuard): T {
	return {
		...tool,
		async execute(id, params, signal, onUpdate, ctx) {
			guard.search(toolPath((params as { path?: unknown }).path, cwd), name);
			return tool.execute(id, params, signal, onUpdate, ctx);
		},
	};
}

/** The sandboxed definitions of the child's built-in tools that the sandbox covers. */
export function sandboxedTools(options: SandboxToolsOptions): ToolDefinition[] {
	const { cwd, policy, bash, guard } = options;
	const wanted = new Set(options.tools);
	const read = (path: string, tool: string) => guard.read(path, tool);
	const out: ToolDefinition[] = [];
	if (wanted.has("bash")) {
		const tool = createBashToolDefinition(cwd, { operations: { exec: (command, dir, run) => bash.exec(command, dir, run) } });
		const note = policy.write.length === 0 ? "it cannot write any file" : "it can write only in its working tree and $TMPDIR";
		out.push({ ...tool, description: `${tool.description}\n\nRuns in an OS sandbox: ${note}, has no network${policy.network.length > 0 ? ` except ${policy.network.join(", ")}` : ""} and no credential variables.` } as ToolDefinition);
	}
	if (wanted.has("read")) {
		out.push(
			createReadToolDefinition(cwd, {
				operations: {
					readFile: async (path) => readFile(read(path, "read")),
					access: async (path) => access(read(path, "read"), constants.R_OK),
					detectImageMimeType: async (path) => imageType(read(path, "read")),
				},
			}) as unknown as ToolDefinition,
		);
	}
	if (wanted.has("write")) {
		out.push(
			createWriteToolDefinition(cwd, {
				operations: {
					writeFile: async (path, content) => writeFile(guard.write(path, "write"), content),
					mkdir: async (dir) => void (await mkdir(guard.write(dir, "write"), { recursive: true })),
				},
			}) as unknown as ToolDefinition,
		);
	}
	if (wanted.has("edit")) {
		out.push(
			createEditToolDefinition(cwd, {
				operations: {
					readFile: async (path) => readFile(guard.write(path, "edit")),
					access: async (path) => access(guard.write(path, "edit"), constants.R_OK | constants.W_OK),
					writeFile: async (path, content) => writeFile(guard.write(path, "edit"), content),
				},
			}) as unknown as ToolDefinition,
		);
	}
	if (wanted.has("ls")) {
		out.push(
			createLsToolDefinition(cwd, {
				operations: {
					exists: async (path) => stat(read(path, "ls")).then(() => true, () => false),
					stat: async (path) => stat(read(path, "ls")),
					readdir: async (path) => readdir(read(path, "ls")),
				},
			}) as unknown as ToolDefinition,
		);
	}
	if (wanted.has("grep")) out.push(guardedSearch(createGrepToolDefinition(cwd) as unknown as ToolDefinition, "grep", cwd, guard));
	if (wanted.has("find")) {
		// Node's glob instead of fd (nothing to download), every match judged like a read.
		const find = createFindToolDefinition(cwd, {
			operations: {
				exists: async (path) => stat(read(path, "find")).then(() => true, () => false),
				async glob(pattern, root, { ignore, limit }) {
					const found: string[] = [];
					for await (const match of glob(pattern.includes("/") ? pattern : `**/${pattern}`, { cwd: root, exclude: (name) => ignore.some((g) => name.includes(g.replaceAll("*", "").replaceAll("/", ""))) })) {
						const path = resolve(root, match);
						try {
							read(path, "find");
						} catch {
							continue;
						}
						found.push(path);
						if (found.length >= limit) break;
					}
					return found;
				},
			},
		});
		out.push(guardedSearch(find as unknown as ToolDefinition, "find", cwd, guard));
	}
	return out;
}
