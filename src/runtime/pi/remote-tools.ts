/**
 * A child's tools on an SSH workspace (issue 25): pi's own read, write, edit, ls, find and bash
 * built with their `operations` on {@link RemoteOps} (src/workspaces/remote-fs.ts: every path
 * confined to the child's remote working tree), and grep, whose search pi always runs locally,
 * with its `execute` replaced by a remote ripgrep/grep. Given to pi as the session's custom
 * tools, they replace the built-ins of the same name. The agent loop stays here; only the tools move.
 */
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
import { type RemoteOps, remotePath } from "../../workspaces/remote-fs.ts";

/** What the remote tools of one child are built from. */
export interface RemoteToolsOptions {
	/** The child's tool names: only these are built. */
	tools: readonly string[];
	ops: RemoteOps;
	/** The workspace's name, shown in the tools' descriptions. */
	workspace: string;
	/** The child's sandbox policy on the remote (ADR 0191): bash's description says what it may do; null or absent: none. */
	sandbox?: Pick<SandboxPolicy, "write"> | null;
}

const IMAGE_MAGIC: [string, number[]][] = [
	["image/png", [0x89, 0x50, 0x4e, 0x47]],
	["image/jpeg", [0xff, 0xd8, 0xff]],
	["image/gif", [0x47, 0x49, 0x46, 0x38]],
];

/** Only names that look like images cost the extra round trip. */
async function imageType(ops: RemoteOps, path: string): Promise<string | null> {
	if (!/\.(png|jpe?g|gif|webp)$/i.test(path)) return null;
	const head = await ops.head(path, 12);
	for (const [type, magic] of IMAGE_MAGIC) if (magic.every((byte, i) => head[i] === byte)) return type;
	if (head.subarray(0, 4).toString() === "RIFF" && head.subarray(8, 12).toString() === "WEBP") return "image/webp";
	return null;
}

type GrepParams = { pattern: string; path?: string; glob?: string; ignoreCase?: boolean; literal?: boolean; context?: number; limit?: number };

/** The remote definitions of the child's built-in tools. */
export function remoteTools(options: RemoteToolsOptions): ToolDefinition[] {
	const { ops, workspace } = options;
	const cwd = ops.dir.remoteDir;
	const wanted = new Set(options.tools);
	const out: ToolDefinition[] = [];
	const add = (tool: unknown) => out.push(tool as ToolDefinition);
	if (wanted.has("bash")) {
		const tool = createBashToolDefinition(cwd, { operations: { exec: (command, dir, o) => ops.exec(command, dir, { onData: o.onData, signal: o.signal, timeout: o.timeout }) } });
		const where = `Runs on the SSH workspace ${workspace}, in ${cwd}`;
		const boundary = options.sandbox
			? `, in an OS sandbox there: ${options.sandbox.write.length === 0 ? "it cannot write any file" : "it can write only in its working tree and $TMPDIR"}, has no network and no credential variables.`
			: ".";
		add({ ...tool, description: `${tool.description}\n\n${where}${boundary}` });
	}
	if (wanted.has("read")) {
		// access is judged by the read itself (one round trip instead of two; a missing file fails there)
		add(createReadToolDefinition(cwd, { operations: { readFile: (p) => ops.readFile(p), access: async (p) => void remotePath(ops.dir, p), detectImageMimeType: (p) => imageType(ops, p) } }));
	}
	if (wanted.has("write")) add(createWriteToolDefinition(cwd, { operations: { writeFile: (p, c) => ops.writeFile(p, c), mkdir: (d) => ops.mkdir(d) } }));
	if (wanted.has("edit")) {
		add(createEditToolDefinition(cwd, { operations: { readFile: (p) => ops.readFile(p), access: (p) => ops.access(p, true), writeFile: (p, c) => ops.writeFile(p, c) } }));
	}
	if (wanted.has("ls")) {
		add(createLsToolDefinition(cwd, { operations: { exists: (p) => ops.exists(p), stat: async (p) => ((dir) => ({ isDirectory: () => dir }))(await ops.isDirectory(p)), readdir: (p) => ops.readdir(p) } }));
	}
	if (wanted.has("find")) {
		add(createFindToolDefinition(cwd, { operations: { exists: (p) => ops.exists(p), glob: (pattern, root, { limit }) => ops.glob(pattern, root, limit) } }));
	}
	if (wanted.has("grep")) {
		const tool = createGrepToolDefinition(cwd);
		add({
			...tool,
			async execute(_id: string, params: GrepParams) {
				const limit = Math.max(1, Math.min(params.limit ?? 100, 1000));
				const text = await ops.grep({ pattern: params.pattern, path: params.path ?? ".", ignoreCase: params.ignoreCase, literal: params.literal, glob: params.glob, context: params.context, limit });
				return { content: [{ type: "text", text: text.trim() === "" ? "No matches found" : text }], details: undefined };
			},
		});
	}
	return out;
}
