/**
 * Where cadre's files live (spec 01): the agent dir, the project directory (the nearest folder
 * holding `.pi/` between the working directory and the git root), the per-kind directories, and
 * how paths are shown to the user.
 */
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { isInside } from "./read-confined.ts";
import type { EntryKind } from "./types.ts";

/** `$PI_CODING_AGENT_DIR` if set, else `<home>/.pi/agent` (pi's own convention). */
export function agentDirFrom(env: NodeJS.ProcessEnv, homeDir: string): string {
	const fromEnv = env.PI_CODING_AGENT_DIR?.trim();
	if (fromEnv) return resolve(fromEnv === "~" ? homeDir : fromEnv.startsWith("~/") ? join(homeDir, fromEnv.slice(2)) : fromEnv);
	return join(homeDir, ".pi", "agent");
}

function real(path: string): string {
	try {
		return realpathSync.native(path);
	} catch {
		return resolve(path);
	}
}

function isDir(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/** The nearest directory at or above `start` that holds `.git` (file or directory), or null. */
export function findGitRoot(start: string): string | null {
	let dir = resolve(start);
	for (;;) {
		if (existsSync(join(dir, ".git"))) return dir;
		const parent = dirname(dir);
		if (parent === dir) return null;
		dir = parent;
	}
}

/**
 * The project directory: walking from `cwd` up to and including the git root, the nearest
 * directory holding a `.pi/` folder; outside a repository only `cwd` itself. A `.pi` that is
 * `<home>/.pi` or contains the agent dir is never a project. Null when there is none.
 */
export function findProjectDir(cwd: string, agentDir: string, homeDir: string): string | null {
	const start = resolve(cwd);
	const gitRoot = findGitRoot(start);
	const homePi = real(join(homeDir, ".pi"));
	const agent = real(agentDir);
	let dir = start;
	for (;;) {
		const pi = join(dir, ".pi");
		if (isDir(pi)) {
			const realPi = real(pi);
			if (realPi !== homePi && !isInside(agent, realPi)) return dir;
		}
		if (gitRoot === null || dir === gitRoot) return null;
		const parent = dirname(dir);
		if (parent === dir) return null;
		dir = parent;
	}
}

/** The folder of each kind inside a scope root (`<project>/.pi` or the agent dir). */
export const KIND_DIRS: Record<EntryKind, string> = { definition: "agents", role: "roles", persona: "personas" };

/** The file extensions each kind may use. */
export const KIND_EXTENSIONS: Record<EntryKind, readonly string[]> = {
	definition: [".md"],
	role: [".md", ".toml"],
	persona: [".md", ".toml"],
};

/** A file found in a kind directory. */
export interface KindFile {
	path: string;
	stem: string;
	ext: string;
	/** The listing says it is a regular file (not a symlink, FIFO or device). */
	regular: boolean;
	/**
	 * Not an entry (ADR 0062): `readme` — a `README.md` describing the folder, skipped; `format` —
	 * a `.toml` where only Markdown is read (definitions), ignored with a warning.
	 */
	stray: "readme" | "format" | null;
}

/** Extensions a kind folder is searched for: the kind's own, and `.toml` everywhere so a stray one is reported. */
const LISTED_EXTENSIONS = [".md", ".toml"];

/**
 * Entry files of one kind in one directory (sorted by name); none when it does not exist. Every
 * entry that is not a directory is listed — symlinks, FIFOs and devices too — so the reader can
 * say why it refuses one.
 */
export function listKindFiles(dir: string, kind: EntryKind): KindFile[] {
	let found: { name: string; regular: boolean }[];
	try {
		found = readdirSync(dir, { withFileTypes: true })
			.filter((d) => !d.isDirectory())
			.map((d) => ({ name: d.name, regular: d.isFile() }));
	} catch {
		return [];
	}
	const out: KindFile[] = [];
	for (const { name, regular } of found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
		if (name.startsWith(".")) continue;
		const ext = LISTED_EXTENSIONS.find((e) => name.toLowerCase().endsWith(e));
		if (!ext) continue;
		const stem = name.slice(0, -ext.length);
		if (stem === "") continue;
		const stray = ext === ".md" && stem.toLowerCase() === "readme" ? "readme" : KIND_EXTENSIONS[kind].includes(ext) ? null : "format";
		out.push({ path: join(dir, name), stem, ext, regular, stray });
	}
	return out;
}

/** A path as shown to the user: relative to the project directory when inside it, else absolute. */
export function displayPath(path: string, projectDir: string | null): string {
	const abs = resolve(path);
	if (projectDir !== null && isInside(abs, projectDir)) {
		const rel = relative(projectDir, abs);
		return rel === "" ? "." : rel.split(sep).join("/");
	}
	return abs;
}
