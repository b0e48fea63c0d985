/**
 * The escape check (spec 05): a fingerprint of the parent's working tree and index taken before and
 * after an isolated run, and the paths that changed in between without the parent's own tool calls
 * having touched them — the child wrote outside its worktree (by absolute path, `cd ..`, …).
 *
 * A fingerprint is `git status --porcelain=v2` (every untracked file listed, ignored files not) plus
 * HEAD, and for every listed path its stat data (size, mtime, ctime, inode, mode): git's own status
 * machinery decides what is dirty, and cadre reads no file's content — the cost grows with what is
 * listed, not with its size (ADR 0088). Only a path written within the file system's timestamp
 * granularity of the fingerprint ("racy", as git calls it) is also hashed, and hashed again in the
 * "after" fingerprint, so a same-size rewrite in the same clock tick is still seen. A rewrite with
 * identical content counts as a change: the file was written. One git subprocess per fingerprint.
 *
 * `content: true` hashes every listed file instead (apply's restore check, where files git rewrote
 * with their old content must compare equal).
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { isInside } from "../files/read-confined.ts";
import { lstatOrNull, realOrNearest, stateOf, walkStates } from "./file-tree.ts";
import { runGit } from "./git.ts";

/** A snapshot of a working tree's state. Plain, JSON-serialisable data. */
export interface Fingerprint {
	/** The working tree's top level (absolute). */
	root: string;
	/** The commit HEAD pointed at, or null in a repository without commits. */
	head: string | null;
	/** The branch checked out, or null when detached. */
	branch: string | null;
	/**
	 * Repository-relative path (`/` separators) → its status line (without the path) plus the file's
	 * state in the working tree: stat data (`s:…`, with `#<sha1>` when racy), or a content hash in a
	 * content fingerprint. Clean files are absent.
	 */
	entries: Record<string, string>;
}

/** How a fingerprint records each listed file. */
export interface FingerprintOptions {
	/** Hash every listed file's content (default: stat data, hashing only racy files). */
	content?: boolean;
	/** The earlier fingerprint this one will be compared with: its racy paths are hashed again. */
	since?: Fingerprint;
	/**
	 * Repository-relative paths git does not list (ignored: the sources of `worktree.include`) whose
	 * files are recorded too, by stat data (`w <state>`).
	 */
	watch?: string[];
}

/** One parsed entry of `git status --porcelain=v2 -z`. */
export interface StatusEntry {
	/** `1` changed, `2` renamed/copied, `u` unmerged, `?` untracked, `!` ignored. */
	kind: "1" | "2" | "u" | "?" | "!";
	/** The status fields before the path (`.M N... 100644 …`), empty for `?` and `!`. */
	fields: string;
	/** Repository-relative path, `/` separators; a trailing `/` marks a directory (a nested repository). */
	path: string;
	/** The source path of a rename or copy. */
	origPath?: string;
}

/** Parsed `git status --porcelain=v2 --branch -z`. */
export interface ParsedStatus {
	/** `# branch.oid`: the commit, or null for `(initial)`. */
	head: string | null;
	/** `# branch.head`: the branch, or null for `(detached)`. */
	branch: string | null;
	entries: StatusEntry[];
}

/** Parses the NUL-separated output of `git status --porcelain=v2 --branch -z`. */
export function parseStatus(output: string): ParsedStatus {
	const parts = output.split("\0");
	const parsed: ParsedStatus = { head: null, branch: null, entries: [] };
	for (let i = 0; i < parts.length; i++) {
		const part = parts[i] as string;
		if (part === "") continue;
		if (part.startsWith("# ")) {
			const [, key, value] = part.split(" ");
			if (key === "branch.oid" && value && value !== "(initial)") parsed.head = value;
			if (key === "branch.head" && value && value !== "(detached)") parsed.branch = part.slice("# branch.head ".length);
			continue;
		}
		const kind = part[0] as StatusEntry["kind"];
		if (kind === "?" || kind === "!") {
			parsed.entries.push({ kind, fields: "", path: part.slice(2) });
			continue;
		}
		// 1: XY sub mH mI mW hH hI path  (8 fields) · 2: … Xscore path (9) · u: XY sub m1 m2 m3 mW h1 h2 h3 path (10)
		const fieldCount = kind === "1" ? 8 : kind === "2" ? 9 : kind === "u" ? 10 : -1;
		if (fieldCount < 0) continue;
		let at = -1;
		for (let n = 0; n < fieldCount; n++) at = part.indexOf(" ", at + 1);
		const entry: StatusEntry = { kind, fields: part.slice(2, at), path: part.slice(at + 1) };
		if (kind === "2") {
			entry.origPath = parts[i + 1];
			i++;
		}
		parsed.entries.push(entry);
	}
	return parsed;
}

/** Arguments of the status call every fingerprint uses. */
export const FINGERPRINT_STATUS_ARGS = [
	"status",
	"--porcelain=v2",
	"--branch",
	"-z",
	"--untracked-files=all",
	"--ignore-submodules=none",
	"--no-renames",
];

/** Builds a fingerprint from already-parsed status output (lets a caller reuse one status call). */
export function fingerprintFromStatus(root: string, status: ParsedStatus, options: FingerprintOptions = {}): Fingerprint {
	const takenAt = Date.now();
	const entries: Record<string, string> = {};
	for (const entry of status.entries) {
		if (entry.kind === "!") continue;
		const path = join(root, entry.path);
		const state = options.content ? hashFile(path) : statState(path, takenAt, isRacy(options.since, entry.path));
		entries[entry.path] = `${entry.kind} ${entry.fields} ${state}`;
		if (entry.origPath !== undefined) entries[entry.origPath] = `${entry.kind} source-of ${entry.path}`;
	}
	return { root, head: status.head, branch: status.branch, entries };
}

/** Takes a fingerprint of the working tree whose top level is `root` (one git subprocess). */
export async function takeFingerprint(root: string, options: FingerprintOptions = {}): Promise<Fingerprint> {
	const result = await runGit(FINGERPRINT_STATUS_ARGS, { cwd: root });
	if (result.code !== 0) throw new Error(`git status failed in ${root}: ${result.stderr.trim()}`);
	const fingerprint = fingerprintFromStatus(root, parseStatus(result.stdout), options);
	for (const [path, state] of watchedStates(root, options.watch ?? [])) fingerprint.entries[path] = state;
	return fingerprint;
}

/**
 * How close to a fingerprint a file's timestamps must be for its stat data alone not to prove it
 * unchanged: file systems stamp with a coarse clock (a scheduler tick, up to 10 ms), so a same-size
 * write in the same tick leaves the stat data as it was. Generous, since only such files pay a hash.
 */
const RACY_MS = 50;

function isRacy(since: Fingerprint | undefined, path: string): boolean {
	return since?.entries[path]?.includes("#") ?? false;
}

/** A file's stat data (`stateOf`), plus `#<sha1>` when racy; `missing`, `dir`. */
function statState(path: string, takenAt: number, racy: boolean): string {
	const stat = lstatOrNull(path);
	if (!stat) return "missing";
	if (stat.isDirectory()) return "dir";
	const state = stateOf(stat, path);
	const newest = Math.max(stat.mtimeMs, stat.ctimeMs);
	return racy || newest >= takenAt - RACY_MS ? `${state}#${hashFile(path)}` : state;
}

const HASH_LIMIT = 64 * 1024 * 1024;

/** Content hash of a file (size and mtime beyond 64 MB), `missing` when it is gone, `dir` for directories. */
function hashFile(path: string): string {
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch {
		return "missing";
	}
	try {
		const stat = fstatSync(fd);
		if (stat.isDirectory()) return "dir";
		if (stat.size > HASH_LIMIT) return `size:${stat.size}:mtime:${stat.mtimeMs}`;
		const hash = createHash("sha1");
		const buffer = Buffer.allocUnsafe(Math.min(stat.size, 1024 * 1024) || 1);
		let read = 0;
		while ((read = readSync(fd, buffer, 0, buffer.length, null)) > 0) hash.update(buffer.subarray(0, read));
		return hash.digest("hex");
	} finally {
		closeSync(fd);
	}
}

/**
 * Whether a path's state is the same in two fingerprints. Stat data decides; a path that was racy
 * in `before` is compared by its content hash too (its stat data may not have moved).
 */
export function sameState(before: string | undefined, after: string | undefined): boolean {
	if (before === after) return true;
	if (before === undefined || after === undefined) return false;
	const hashAt = before.lastIndexOf("#");
	if (hashAt < 0) return false;
	// racy before: the stat part must match and, when the after side hashed again, so must the hash
	const afterHash = after.lastIndexOf("#");
	const afterStat = afterHash < 0 ? after : after.slice(0, afterHash);
	return before.slice(0, hashAt) === afterStat && afterHash >= 0 && before.slice(hashAt) === after.slice(afterHash);
}

/** Walks the parent's `paths` (each followed once at the top, inside the repository) into `w <state>` entries. */
export function watchedStates(parentRoot: string, paths: string[]): Map<string, string> {
	const out = new Map<string, string>();
	for (const path of paths) {
		let real: string;
		try {
			real = realpathSync(join(parentRoot, path));
		} catch {
			continue;
		}
		if (!isInside(real, parentRoot)) continue;
		for (const [entry, value] of walkStates(real, path)) out.set(entry, `w ${value}`);
	}
	return out;
}

/** What the escape check found. */
export interface EscapeReport {
	/** Repository-relative paths that changed without the parent touching them, sorted. */
	paths: string[];
	/** HEAD before and after when it moved during the run (a commit, reset or checkout), else null. */
	headMoved: { from: string | null; to: string | null } | null;
	/** A warning in plain words naming the paths, or null when nothing escaped. */
	warning: string | null;
}

/**
 * Normalises the parent's touched paths (symlinks resolved, as the fingerprint's root is a real path): absolute paths become repository-relative (paths outside
 * the repository are dropped); a touched directory covers everything below it.
 */
function touchedMatcher(root: string, touched: Set<string>): (path: string) => boolean {
	const prefixes: string[] = [];
	for (const raw of touched) {
		let rel = isAbsolute(raw) ? relative(root, realOrNearest(raw)) : raw;
		if (rel.startsWith("..") || isAbsolute(rel)) continue;
		rel = rel.split(sep).join("/").replace(/^\.\/+/, "").replace(/\/+$/, "");
		prefixes.push(rel);
	}
	return (path) => {
		const clean = path.replace(/\/+$/, "");
		return prefixes.some((p) => p === "" || p === "." || clean === p || clean.startsWith(`${p}/`));
	};
}

/**
 * The paths whose state differs between `before` and `after` and that the parent's own tool calls
 * did not touch. `touchedByParent` holds absolute or repository-relative paths (files or directories).
 */
export function escapedPaths(before: Fingerprint, after: Fingerprint, touchedByParent: Set<string>): string[] {
	const touched = touchedMatcher(before.root, touchedByParent);
	const changed = new Set<string>();
	for (const [path, state] of Object.entries(after.entries)) if (!sameState(before.entries[path], state)) changed.add(path);
	for (const path of Object.keys(before.entries)) if (!(path in after.entries)) changed.add(path);
	return [...changed].filter((path) => !touched(path)).sort();
}

/** `a, b and 7 more`: the first `limit` paths, and how many were left out. */
export function listPaths(paths: string[], limit: number): string {
	const more = paths.length > limit ? ` and ${paths.length - limit} more` : "";
	return `${paths.slice(0, limit).join(", ")}${more}`;
}

/** The escape check with a ready-made warning: changed paths plus whether HEAD moved. */
export function checkEscape(before: Fingerprint, after: Fingerprint, touchedByParent: Set<string>): EscapeReport {
	const paths = escapedPaths(before, after, touchedByParent);
	const headMoved = before.head !== after.head ? { from: before.head, to: after.head } : null;
	let warning: string | null = null;
	if (paths.length > 0) {
		warning =
			`While the isolated child ran, ${paths.length} path(s) in the parent's working tree ${before.root} changed ` +
			`that the parent did not touch: ${listPaths(paths, 20)}. The child may have written outside its worktree; ` +
			"review these changes (git status, git diff) before keeping them.";
	}
	if (headMoved) {
		const move = `HEAD of ${before.root} moved from ${short(headMoved.from)} to ${short(headMoved.to)} during the run.`;
		warning = warning ? `${warning} ${move}` : move;
	}
	return { paths, headMoved, warning };
}

function short(commit: string | null): string {
	return commit ? commit.slice(0, 12) : "(no commit)";
}
