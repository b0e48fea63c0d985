/**
 * The one reader for every file cadre reads from a scope (ADR 0060): definitions, roles, personas,
 * `subagents.json`, `prompt_file` / `instructions_file`, context files and git metadata. Before
 * anything is read, in this order:
 *
 * 1. **confinement** — a project file's real path must be inside the project's real path (a
 *    symlink pointing out is `path-escape`); a user file's path as written must be inside the agent
 *    dir, and symlinks the user made there are followed wherever they point;
 * 2. **type** — only regular files: the type is checked before opening (stat, so a device or FIFO
 *    is never opened), the file is opened non-blocking and without following a last symlink, and
 *    the descriptor is checked again (fstat), so a file swapped in between cannot stall or escape;
 * 3. **size** — at most `maxBytes` (1 MiB by default), on the descriptor and while reading.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, type Stats, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Diagnostic, DiagnosticCode } from "../core/diagnostics.ts";
import type { FileRef } from "./types.ts";

/** The size limit per file when no setting raises it. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** The largest `maxFileBytes` a setting may ask for. */
export const MAX_FILE_BYTES_CEILING = 1024 * 1024 * 1024;

/** Why a file was not read. `unreadable` is any other error of the file system (permissions, …). */
export type ReadProblemCode = "missing-file" | "path-escape" | "not-a-file" | "file-too-large" | "unreadable";

/** Where a path must be for it to be read, and how big it may be. */
export interface ReadRule {
	/**
	 * `project`: the real path must be inside the real path of `root`. `user`: the path as written
	 * must be inside `root`; symlinks are followed. `any`: no confinement (git metadata, manifests).
	 */
	confine: "project" | "user" | "any";
	/** The scope root (absolute); unused for `any`. */
	root: string;
	/** The real path of `root`, when the caller already knows it (saves one lookup per file). */
	realRoot?: string;
	maxBytes: number;
	/** Read only the first `maxBytes` of a larger file instead of refusing it (a session file's header). */
	head?: boolean;
}

export interface ReadProblem {
	ok: false;
	code: ReadProblemCode;
	/** What is wrong, as a phrase after the file's name: `is a FIFO (named pipe)`. */
	reason: string;
}

export type FileCheck = { ok: true; path: string } | ReadProblem;
export type FileRead = { ok: true; text: string; path: string } | ReadProblem;

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

function problem(code: ReadProblemCode, reason: string): ReadProblem {
	return { ok: false, code, reason };
}

/** `2.0 GiB`, `1.0 MiB`, `12 KiB`, `300 bytes`. */
export function formatBytes(bytes: number): string {
	if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
	if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
	if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
	return `${bytes} bytes`;
}

/** Real path of `path`; when it does not exist, the real path of its longest existing ancestor plus the rest. */
function realish(path: string): string {
	let current = path;
	const rest: string[] = [];
	for (;;) {
		try {
			return rest.length === 0 ? realpathSync.native(current) : join(realpathSync.native(current), ...rest);
		} catch {
			const parent = dirname(current);
			if (parent === current) return path;
			rest.unshift(basename(current));
			current = parent;
		}
	}
}

/** The real path of a scope root (itself when it does not exist). */
export function realRootOf(root: string): string {
	return realish(resolve(root));
}

/** Whether `child` is `root` or below it (both absolute, same form). */
export function isInside(child: string, root: string): boolean {
	const rel = relative(root, child);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Where `path` really is, if the rule lets it be read from there (the path need not exist). */
export function confine(path: string, rule: ReadRule): FileCheck {
	const abs = resolve(path);
	if (rule.confine === "any") return { ok: true, path: abs };
	if (rule.confine === "user") {
		if (!isInside(abs, resolve(rule.root))) return problem("path-escape", `is outside ${rule.root}`);
		return { ok: true, path: realish(abs) };
	}
	const real = realish(abs);
	if (!isInside(real, rule.realRoot ?? realRootOf(rule.root))) {
		const how = real === abs ? "is outside" : `resolves to ${real}, outside`;
		return problem("path-escape", `${how} ${rule.root}`);
	}
	return { ok: true, path: real };
}

function typeProblem(stat: Stats): ReadProblem | null {
	if (stat.isFile()) return null;
	if (stat.isDirectory()) return problem("not-a-file", "is a directory, not a file");
	if (stat.isFIFO()) return problem("not-a-file", "is a FIFO (named pipe), not a regular file");
	if (stat.isCharacterDevice() || stat.isBlockDevice()) return problem("not-a-file", "is a device, not a regular file");
	if (stat.isSocket()) return problem("not-a-file", "is a socket, not a regular file");
	return problem("not-a-file", "is not a regular file");
}

function sizeProblem(size: number, rule: ReadRule): ReadProblem | null {
	if (rule.head || size <= rule.maxBytes) return null;
	return problem("file-too-large", `is ${formatBytes(size)}, over the ${formatBytes(rule.maxBytes)} limit`);
}

function errnoProblem(error: unknown): ReadProblem {
	const code = (error as NodeJS.ErrnoException).code;
	if (code === "ENOENT" || code === "ENOTDIR") return problem("missing-file", "does not exist");
	return problem("unreadable", `cannot be read (${code ?? (error as Error).message})`);
}

/** Confinement, type and size of `path`, without opening it. */
export function checkFile(path: string, rule: ReadRule): FileCheck {
	const where = confine(path, rule);
	if (!where.ok) return where;
	let stat: Stats;
	try {
		stat = statSync(where.path);
	} catch (error) {
		return errnoProblem(error);
	}
	return typeProblem(stat) ?? sizeProblem(stat.size, rule) ?? where;
}

/** The bytes of an open regular file, at most `maxBytes` (more: null, or with `head` the first `maxBytes`). */
function readBounded(fd: number, size: number, maxBytes: number, head: boolean): Buffer | null {
	let buffer = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1);
	let length = 0;
	for (;;) {
		if (length === buffer.length) {
			if (buffer.length > maxBytes) return head ? buffer.subarray(0, maxBytes) : null;
			const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
			buffer.copy(grown, 0, 0, length);
			buffer = grown;
		}
		const wanted = buffer.length - length;
		const n = readSync(fd, buffer, length, wanted, null);
		length += n;
		// A short read of a regular file is its end (one read for a file whose size fstat told).
		if (n < wanted) return buffer.subarray(0, length);
	}
}

function readOpen(real: string, rule: ReadRule, follow: boolean): FileRead | "swapped" {
	let fd: number;
	try {
		fd = openSync(real, OPEN_FLAGS | (follow ? 0 : NO_FOLLOW));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ELOOP" && !follow) return "swapped";
		return errnoProblem(error);
	}
	try {
		const stat = fstatSync(fd);
		const bad = typeProblem(stat) ?? sizeProblem(stat.size, rule);
		if (bad) return bad;
		const bytes = readBounded(fd, stat.size, rule.maxBytes, rule.head === true);
		if (bytes === null) return problem("file-too-large", `grew past the ${formatBytes(rule.maxBytes)} limit while being read`);
		return { ok: true, text: bytes.toString("utf8"), path: real };
	} catch (error) {
		return errnoProblem(error);
	} finally {
		closeSync(fd);
	}
}

/**
 * Reads `path` under `rule`. `knownReal` is the caller's word that `path` is a regular file (not a
 * symlink) at that real path inside the root — a directory listing said so — and skips the lookups;
 * the descriptor is checked all the same, and a symlink swapped in since falls back to the full checks.
 */
export function readFileUnder(path: string, rule: ReadRule, knownReal?: string): FileRead {
	if (knownReal !== undefined) {
		const fast = readOpen(knownReal, rule, false);
		if (fast !== "swapped") return fast;
	}
	const checked = checkFile(path, rule);
	if (!checked.ok) return checked;
	const read = readOpen(checked.path, rule, rule.confine === "any");
	return read === "swapped" ? problem("unreadable", "changed while being read") : read;
}

const WHOLE_FILE_HINTS: Record<ReadProblemCode, string> = {
	"path-escape": "keep the file inside the project: replace the symlink with the file itself, or point it inside the project",
	"not-a-file": "replace it with a regular file, or remove it",
	"file-too-large": "shorten it, or raise maxFileBytes in your user settings (~/.pi/agent/subagents.json)",
	"missing-file": "check that the file still exists",
	unreadable: "check the file's permissions",
};

/**
 * The diagnostic for a whole file (or directory) the reader refused, at its first line:
 * `subject` names it (`the file`, `the directory`), `outcome` says what cadre does instead.
 */
export function readProblemDiagnostic(file: string, found: ReadProblem, subject: string, outcome: string): Diagnostic {
	// Any other file-system error is reported as before ADR 0060: the file cannot be parsed.
	const code: DiagnosticCode = found.code === "unreadable" ? "parse-error" : found.code;
	const leaves = found.code === "path-escape" ? ": it leaves the project" : "";
	return {
		severity: "error",
		file,
		line: 1,
		column: 1,
		code,
		message: `${subject} ${found.reason}${leaves}; ${outcome}`,
		hint: WHOLE_FILE_HINTS[found.code],
	};
}

/** A referenced file's read rule: its scope's confinement (project unless stated) and limit. */
function refRule(ref: FileRef): ReadRule {
	return { confine: ref.confine ?? "project", root: ref.root, maxBytes: ref.maxBytes ?? DEFAULT_MAX_FILE_BYTES };
}

export type ConfinedProblem = { ok: false; code: Exclude<ReadProblemCode, "unreadable">; message: string };
export type ConfinedCheck = { ok: true; path: string } | ConfinedProblem;
export type ConfinedRead = { ok: true; text: string } | ConfinedProblem;

function refProblem(ref: FileRef, found: ReadProblem): ConfinedProblem {
	const where = `"${ref.written}" (from ${ref.declaredIn})`;
	const target = resolve(ref.baseDir, ref.written);
	// A file that cannot be read for another reason is reported like a missing one (ADR 0015).
	const code = found.code === "unreadable" ? "missing-file" : found.code;
	const detail = found.code === "missing-file" ? ` (looked for ${target})` : "";
	return { ok: false, code, message: `${where} ${found.reason}${detail}` };
}

/** Whether the file `ref` names may be read: confinement, type and size, without opening it. */
export function checkConfined(ref: FileRef): ConfinedCheck {
	const checked = checkFile(resolve(ref.baseDir, ref.written), refRule(ref));
	return checked.ok ? checked : refProblem(ref, checked);
}

/** Reads the file `ref` names (a `prompt_file` / `instructions_file`) under its rule; the text is trimmed. */
export function readConfined(ref: FileRef): ConfinedRead {
	const read = readFileUnder(resolve(ref.baseDir, ref.written), refRule(ref));
	return read.ok ? { ok: true, text: read.text.trim() } : refProblem(ref, read);
}
