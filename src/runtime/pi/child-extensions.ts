/**
 * Which of the parent's pi extensions a child reloads (spec 04 "In-process children"): what pi
 * discovers for the parent plus its `-e` paths, minus cadre itself (depth 1), pi's built-ins and
 * settings `childExtensions.exclude`.
 */

import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, extname, join, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import { DefaultResourceLoader, type Extension, parseArgs, SettingsManager } from "@earendil-works/pi-coding-agent";
import { DEFAULT_MAX_FILE_BYTES, type ReadRule, readFileUnder } from "../../files/read-confined.ts";

/**
 * cadre's own pi extension entries, never loaded into children (depth 1): the extension module
 * (`.ts` in a checkout, `.js` in the build) and the package's `extension/` entry pi loads (ADR 0003).
 */
export const CADRE_EXTENSION_ENTRIES: readonly string[] = (() => {
	const here = fileURLToPath(import.meta.url);
	const dir = dirname(here);
	return [resolvePath(dir, `../../hosts/pi/extension${extname(here)}`), resolvePath(dir, "../../../extension/index.ts"), resolvePath(dir, "../../../extension/index.js")];
})();

function realOrSelf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** An extension's `package.json`: a regular file, bounded (ADR 0060), wherever the extension lives. */
const MANIFEST_RULE: ReadRule = { confine: "any", root: "/", maxBytes: DEFAULT_MAX_FILE_BYTES };

/** The nearest directory above `path` holding a `package.json`, with the package's name. */
function packageOf(path: string): { dir: string; name: string | null } | null {
	for (let dir = dirname(path); ; dir = dirname(dir)) {
		const manifest = join(dir, "package.json");
		if (existsSync(manifest)) {
			try {
				const read = readFileUnder(manifest, MANIFEST_RULE);
				const name = read.ok ? (JSON.parse(read.text) as { name?: unknown }).name : null;
				return { dir, name: typeof name === "string" ? name : null };
			} catch {
				return { dir, name: null };
			}
		}
		if (dirname(dir) === dir) return null;
	}
}

/**
 * Whether an extension path matches one `childExtensions.exclude` entry: the path, the file stem,
 * the directory of an `index` file, an `npm:` / `node_modules` name, or the extension's package
 * (its directory name or `package.json` name) — never any other ancestor directory.
 */
export function extensionExcluded(path: string, exclude: readonly string[]): boolean {
	const stem = basename(path).replace(/\.(ts|js|mjs|cjs)$/, "");
	const parentDir = basename(dirname(path));
	const real = realOrSelf(path);
	let pkg: ReturnType<typeof packageOf> | undefined;
	for (const raw of exclude) {
		const entry = raw.replace(/^npm:/, "").replace(/@[^/@]*$/, "");
		if (entry === path || entry === real || realOrSelf(resolvePath(entry)) === real) return true;
		if (entry === stem || (stem === "index" && entry === parentDir)) return true;
		if (path.includes(`/node_modules/${entry}/`)) return true;
		pkg ??= packageOf(path);
		if (pkg && (entry === basename(pkg.dir) || entry === pkg.name)) return true;
	}
	return false;
}

/**
 * The `-e` extension paths of a `pi` command line in this process (empty when pi is embedded), and
 * whether it ran with `--no-extensions` (then pi loaded only those paths).
 */
function cliExtensions(): { paths: string[]; noExtensions: boolean } {
	const script = process.argv[1] ?? "";
	if (!/(^|[/\\])(pi|cli\.js)$/.test(script) || !script.includes("pi")) return { paths: [], noExtensions: false };
	try {
		const args = parseArgs(process.argv.slice(2));
		return { paths: args.extensions ?? [], noExtensions: args.noExtensions === true };
	} catch {
		return { paths: [], noExtensions: false };
	}
}

/** Options for {@link discoverChildExtensions}. */
export interface DiscoverChildExtensionsOptions {
	/** The parent's cwd (discovery runs as pi would for the parent). */
	cwd: string;
	agentDir: string;
	/** Whether the parent's session trusts the project: untrusted project extensions never load. */
	projectTrusted: boolean;
	/** Settings `childExtensions.exclude`. */
	exclude: readonly string[];
	/** Extra extension paths the host knows the parent loaded (SDK embedders). */
	extraPaths?: readonly string[];
}

/** What the parent loaded, as paths children reload: cadre itself and excluded ones removed. */
export interface ChildExtensionSet {
	paths: string[];
	/** Paths left out by `childExtensions.exclude`. */
	excluded: string[];
}

/**
 * The extensions a child loads: those pi discovers for the parent (settings, global and — when
 * trusted — project extension directories, packages) plus the parent's `-e` paths, minus cadre
 * itself, pi's built-in extensions and settings `childExtensions.exclude`. Run once per parent.
 */
export async function discoverChildExtensions(options: DiscoverChildExtensionsOptions): Promise<ChildExtensionSet> {
	const settingsManager = SettingsManager.create(options.cwd, options.agentDir, { projectTrusted: options.projectTrusted });
	const cli = cliExtensions();
	const loader = new DefaultResourceLoader({
		cwd: options.cwd,
		agentDir: options.agentDir,
		settingsManager,
		// `pi --no-extensions`: the parent loaded only its `-e` paths, so children do too.
		noExtensions: cli.noExtensions,
		additionalExtensionPaths: [...cli.paths, ...(options.extraPaths ?? [])],
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
	});
	await loader.reload();
	return childExtensionSet(loader.getExtensions().extensions, options.exclude);
}

/** cadre's own extension entries by real path (the sources' and the build's). */
let cadreEntries: Set<string> | null = null;
function cadreEntryPaths(): Set<string> {
	cadreEntries ??= new Set(CADRE_EXTENSION_ENTRIES.map(realOrSelf));
	return cadreEntries;
}

/** Whether a loaded extension is cadre's own (never loaded into a child, nor into `cadre run`'s parent). */
export function isCadre(extension: Pick<Extension, "path" | "resolvedPath">): boolean {
	return cadreEntryPaths().has(realOrSelf(extension.resolvedPath || extension.path));
}

/** The files of loaded extensions children reload: not pi's built-ins or inline ones, not cadre, minus `exclude`. */
export function childExtensionSet(extensions: readonly Extension[], exclude: readonly string[]): ChildExtensionSet {
	const paths: string[] = [];
	const excluded: string[] = [];
	for (const extension of extensions) {
		const path = extension.resolvedPath || extension.path;
		if (path.startsWith("builtin:") || path.startsWith("<") || !existsSync(path)) continue;
		if (isCadre(extension)) continue;
		if (paths.includes(path)) continue;
		if (extensionExcluded(path, exclude)) excluded.push(path);
		else paths.push(path);
	}
	return { paths, excluded };
}
