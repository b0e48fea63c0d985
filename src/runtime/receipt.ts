/**
 * A run's receipt (issue 23, ADR 0118): what the child did, observed by cadre rather than said by
 * the child — the files it changed with added/removed lines (its worktree's diff when isolated;
 * else its write/edit calls plus what `git status` shows changed during the run), every bash command
 * with its exit code and duration (the last 20, and counts), and how often it used each tool.
 * A receipt proves what cadre saw happen; it does not prove the work is right (see docs/runtime.md).
 */
import { execFile } from "node:child_process";
import { lstatSync, readFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { RESULT_TOOL } from "../core/cadre-tools.ts";
import { BUILTIN_TOOL_KINDS } from "../resolve/tools.ts";
import type { ChildEvent } from "./pi/child-events.ts";
import { SUBMIT_RESULT_TOOL } from "./structured-result.ts";

/** One changed file. `added`/`removed` are null for binary files or when cadre could not count them. */
export interface ReceiptFile {
	path: string;
	added: number | null;
	removed: number | null;
}

/** One bash command the child ran. `exitCode` is null when it was killed or never ran. */
export interface ReceiptCommand {
	command: string;
	exitCode: number | null;
	durationMs: number | null;
}

/** The receipt in every result, record and event. */
export interface Receipt {
	/** Where `files` comes from: the worktree's diff (isolated runs) or the tool calls and `git status` (the rest). */
	filesFrom: "worktree-diff" | "tool-calls-and-git-status" | "tool-calls";
	files: ReceiptFile[];
	/** The last {@link RECEIPT_COMMANDS} bash commands, oldest first. */
	commands: ReceiptCommand[];
	/** Every bash command, and how many exited nonzero (or were killed). */
	commandCount: number;
	failedCommands: number;
	/** Tool name → calls. */
	toolUses: Record<string, number>;
}

export const RECEIPT_COMMANDS = 20;
const COMMAND_CHARS = 300;

/** Collects a receipt from a child's events while it runs. */
export interface ReceiptCollector {
	onEvent(event: ChildEvent): void;
	/**
	 * What the child's call of `toolName` waits for before it runs: the first call that can change
	 * a file takes the tree's `git status` first (null: nothing to wait for).
	 */
	beforeTool(toolName: string): Promise<void> | null;
	/** The receipt at the run's end; `isolation` is the run's isolation report (its `diffStat` when isolated). */
	finish(isolation: Record<string, unknown> | null): Promise<Receipt>;
}

function run(cwd: string, args: string[]): Promise<string | null> {
	return new Promise((done) => {
		execFile("git", args, { cwd, encoding: "utf8", maxBuffer: 32 * 1024 * 1024 }, (error, stdout) => done(error ? null : stdout));
	});
}

/** Finds the top of the working tree holding a directory (null outside one). */
export type RepoRootOf = (cwd: string) => Promise<string | null>;

const askGit: RepoRootOf = async (cwd) => (await run(cwd, ["rev-parse", "--show-toplevel"]))?.trim() || null;

/** `git status` as path → status code, or null outside a repository. */
async function statusOf(cwd: string, rootOf: RepoRootOf): Promise<{ root: string; entries: Map<string, string> } | null> {
	const root = await rootOf(cwd).catch(() => null);
	if (!root) return null;
	const out = await run(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]);
	if (out === null) return null;
	const entries = new Map<string, string>();
	for (const record of out.split("\0")) if (record.length > 3) entries.set(record.slice(3), record.slice(0, 2));
	return { root, entries };
}

/** Added/removed lines of `paths` against HEAD (untracked files: every line added). */
async function countLines(root: string, paths: string[]): Promise<ReceiptFile[]> {
	if (paths.length === 0) return [];
	const numstat = (await run(root, ["diff", "HEAD", "--numstat", "-z", "--no-renames", "--", ...paths])) ?? "";
	const counted = new Map<string, ReceiptFile>();
	for (const record of numstat.split("\0")) {
		const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(record.replace(/^\n/, ""));
		if (match) counted.set(match[3] as string, { path: match[3] as string, added: match[1] === "-" ? null : Number(match[1]), removed: match[2] === "-" ? null : Number(match[2]) });
	}
	return paths.map((path) => counted.get(path) ?? { path, ...newFileLines(join(root, path)) });
}

const MAX_COUNTED_BYTES = 4 * 1024 * 1024;

/** A new (untracked) file: every line added; null for a binary, large or unreadable one (or a deleted path). */
function newFileLines(path: string): { added: number | null; removed: number | null } {
	try {
		const stat = lstatSync(path);
		if (!stat.isFile() || stat.size > MAX_COUNTED_BYTES) return { added: null, removed: null };
		const bytes = readFileSync(path);
		if (bytes.includes(0)) return { added: null, removed: null };
		const text = bytes.toString("utf8");
		return { added: text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0), removed: 0 };
	} catch {
		return { added: null, removed: null };
	}
}

function toolPath(args: unknown): string | null {
	const path = (args as { path?: unknown; file_path?: unknown } | null)?.path ?? (args as { file_path?: unknown } | null)?.file_path;
	return typeof path === "string" && path !== "" ? path.replace(/^@/, "") : null;
}

/**
 * Whether a call of `toolName` changes no file: pi's read tools, and cadre's tools that only answer.
 * A child that calls only these runs no `git` for its receipt.
 */
const changesNoFile = (toolName: string) => BUILTIN_TOOL_KINDS[toolName] === "read" || toolName === SUBMIT_RESULT_TOOL || toolName === RESULT_TOOL;

/**
 * Starts collecting for a child working in `cwd`. A non-isolated run compares the tree's `git
 * status` at its end with the one taken before its first call that can change a file (issue 28:
 * not at the start — a `git` subprocess costs the parent's main thread milliseconds, and the child
 * changes nothing before such a call; the call waits for it through `beforeTool`, or, for a child
 * that does not wait, it is taken when the call starts). `rootOf` finds the working tree's top
 * (default: asks git each time).
 */
export function createReceiptCollector(cwd: string, isolated: boolean, rootOf: RepoRootOf = askGit): ReceiptCollector {
	const toolUses: Record<string, number> = {};
	const commands: ReceiptCommand[] = [];
	const pending = new Map<string, ReceiptCommand>();
	let commandCount = 0;
	let failedCommands = 0;
	const written = new Set<string>();
	/** The tree's status before the child's first call that can change a file; null until then. */
	let before: Promise<Awaited<ReturnType<typeof statusOf>>> | null = null;
	const look = (toolName: string) => (isolated || changesNoFile(toolName) ? null : (before ??= statusOf(cwd, rootOf)));
	return {
		beforeTool(toolName) {
			return look(toolName)?.then(() => undefined) ?? null;
		},
		onEvent(event) {
			if (event.type === "tool_start") {
				look(event.toolName);
				toolUses[event.toolName] = (toolUses[event.toolName] ?? 0) + 1;
				if (event.toolName === "write" || event.toolName === "edit") {
					const path = toolPath(event.args);
					if (path) written.add(isAbsolute(path) ? path : resolve(cwd, path));
				}
				if (event.toolName === "bash") {
					const raw = String((event.args as { command?: unknown } | null)?.command ?? "");
					const command: ReceiptCommand = { command: raw.length > COMMAND_CHARS ? `${raw.slice(0, COMMAND_CHARS - 1)}…` : raw, exitCode: null, durationMs: null };
					commandCount++;
					commands.push(command);
					if (commands.length > RECEIPT_COMMANDS) commands.shift();
					pending.set(event.toolCallId ?? String(commandCount), command);
				}
			} else if (event.type === "tool_end" && event.toolName === "bash") {
				const command = pending.get(event.toolCallId ?? String(commandCount));
				pending.delete(event.toolCallId ?? String(commandCount));
				if (command) {
					command.exitCode = event.exitCode ?? (event.isError ? null : 0);
					command.durationMs = event.durationMs ?? null;
				}
				if (event.isError || (event.exitCode ?? 0) !== 0) failedCommands++;
			}
		},
		async finish(isolation) {
			const base = { commands: commands.map((c) => ({ ...c })), commandCount, failedCommands, toolUses: { ...toolUses } };
			const diff = (isolation?.diffStat as { files?: ReceiptFile[] } | null | undefined)?.files;
			if (isolated && Array.isArray(diff)) return { filesFrom: "worktree-diff", files: diff.map((f) => ({ path: f.path, added: f.added, removed: f.removed })), ...base };
			// Outside a repository, or no call that can change a file: the receipt is the tool calls' (no status to compare).
			const was = await before;
			const now = was ? await statusOf(cwd, rootOf) : null;
			if (!was || !now) return { filesFrom: "tool-calls", files: [...written].map((path) => ({ path, added: null, removed: null })), ...base };
			const paths = new Set<string>();
			for (const [path, code] of now.entries) if (was.entries.get(path) !== code) paths.add(path);
			for (const path of written) {
				const rel = relative(now.root, path);
				if (!rel.startsWith("..") && !isAbsolute(rel) && now.entries.has(rel)) paths.add(rel);
			}
			return { filesFrom: "tool-calls-and-git-status", files: await countLines(now.root, [...paths].sort()), ...base };
		},
	};
}

/** The compact form the parent's model reads: one line of files, one of commands, one of tool uses. */
export function receiptText(receipt: Receipt): string {
	const tools = Object.entries(receipt.toolUses).map(([name, n]) => `${name} ${n}`).join(", ") || "none";
	return [`Receipt (observed by cadre): files changed (${receipt.filesFrom}): ${receipt.files.length === 0 ? "none" : receiptFiles(receipt)}.`, `Commands: ${receiptCommands(receipt)}. Tool uses: ${tools}.`].join("\n");
}

/** `src/a.ts +3/-1, b.bin` (the first 30). */
export function receiptFiles(receipt: Receipt): string {
	const lines = (f: ReceiptFile) => (f.added === null ? "" : ` +${f.added}/-${f.removed}`);
	return receipt.files.slice(0, 30).map((f) => `${f.path}${lines(f)}`).join(", ") + (receipt.files.length > 30 ? `, … ${receipt.files.length - 30} more` : "");
}

/** `3 run, 1 failed; last: \`npm test\` → exit 1 2.0s` (the last 5). */
export function receiptCommands(receipt: Receipt): string {
	const shown = receipt.commands.slice(-5).map((c) => `\`${c.command.slice(0, 80)}\` → ${c.exitCode === null ? "killed" : `exit ${c.exitCode}`}${c.durationMs === null ? "" : ` ${(c.durationMs / 1000).toFixed(1)}s`}`);
	return `${receipt.commandCount} run, ${receipt.failedCommands} failed${shown.length > 0 ? `; last: ${shown.join("; ")}` : ""}`;
}
