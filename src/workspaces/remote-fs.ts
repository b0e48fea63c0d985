/**
 * File and command operations of a child on its remote workspace (issue 25), over one
 * {@link SshConnection}: every path is confined to the child's remote workspace like locally — a
 * relative path resolves against the workspace, a path under the child's local cwd is mapped onto
 * it, anything else absolute or climbing out with `..` is refused — and then judged again on the
 * remote by its real path (`realpath -m`), in the same round trip as the operation, so a symbolic
 * link cannot lead outside either. Pure transport: the pi tools are built on it in
 * src/runtime/pi/remote-tools.ts.
 */
import { posix } from "node:path";
import { type ExecOptions, run, type SshConnection, shq } from "./ssh-connection.ts";

/** Exit code the confining prologue uses for a path outside the workspace. */
const OUTSIDE = 97;

/** Where the child works: its remote directory, and the local cwd pi shows it. */
export interface RemoteWorkspaceDir {
	/** Absolute remote directory the child's tools are confined to. */
	remoteDir: string;
	/** The child's local cwd (paths under it are mapped onto `remoteDir`). */
	localCwd: string;
	/**
	 * Real paths inside `remoteDir` its sandbox denies reading (ADR 0191): the file tools refuse
	 * them, and a search (grep, find) whose root holds one. Absent: nothing is denied.
	 */
	denied?: readonly string[];
}

/** Exit code the confining prologue uses for a path the sandbox denies. */
const DENIED = 98;

/** The remote path of a tool path, or throws when it leaves the workspace. */
export function remotePath(dir: RemoteWorkspaceDir, path: string): string {
	let raw = path.trim() === "" ? "." : path.trim();
	if (raw.startsWith("@")) raw = raw.slice(1);
	if (raw === dir.localCwd || raw.startsWith(`${dir.localCwd}/`)) raw = dir.remoteDir + raw.slice(dir.localCwd.length);
	if (raw.split("/").includes("..")) throw new Error(`path ${path} is refused: \`..\` is not allowed on a remote workspace; name the file inside the working tree`);
	const absolute = posix.resolve(dir.remoteDir, raw);
	if (absolute !== dir.remoteDir && !absolute.startsWith(`${dir.remoteDir}/`)) {
		throw new Error(`path ${path} is outside the child's remote working tree (${dir.remoteDir}); name a file inside it`);
	}
	return absolute;
}

/** Lines that exit DENIED when `$p` is (for a search: or holds) a path the sandbox denies. */
function deniedCheck(dir: RemoteWorkspaceDir, search: boolean): string[] {
	return (dir.denied ?? []).map((denied) => {
		const quoted = shq(denied);
		const holds = search ? ` case ${shq(`${denied}/`)} in "$p"/*) echo ${shq(`the search would reach ${denied}, which the sandbox denies reading`)} >&2; exit ${DENIED};; esac;` : "";
		return `case "$p" in ${quoted}|${quoted}/*) echo ${shq(`the sandbox denies reading ${denied}`)} >&2; exit ${DENIED};; esac;${holds}`;
	});
}

/** A shell script that sets `$p` to the real path of `path` and runs `body`, or exits OUTSIDE (DENIED: the sandbox denies it). */
function confined(dir: RemoteWorkspaceDir, path: string, body: string, search = false): string {
	const target = remotePath(dir, path);
	return [
		`root=$(realpath -m -- ${shq(dir.remoteDir)}) && p=$(realpath -m -- ${shq(target)}) || exit 1`,
		`case "$p" in "$root"|"$root"/*) ;; *) echo "path leads outside the working tree" >&2; exit ${OUTSIDE};; esac`,
		...deniedCheck(dir, search),
		body,
	].join("\n");
}

/** The remote operations of one child. */
export interface RemoteOps {
	readonly dir: RemoteWorkspaceDir;
	readFile(path: string): Promise<Buffer>;
	/** Throws unless the file exists and is readable (`write`: and writable). */
	access(path: string, write?: boolean): Promise<void>;
	writeFile(path: string, content: string): Promise<void>;
	mkdir(path: string): Promise<void>;
	exists(path: string): Promise<boolean>;
	isDirectory(path: string): Promise<boolean>;
	readdir(path: string): Promise<string[]>;
	/** The first bytes of a file (image detection). */
	head(path: string, bytes: number): Promise<Buffer>;
	/** Files matching a glob under `path` (bash globstar; the pattern is never evaluated as code). */
	glob(pattern: string, path: string, limit: number): Promise<string[]>;
	/** `grep` on the remote (ripgrep when it is there); the text lines as rg/grep print them. */
	grep(options: { pattern: string; path: string; ignoreCase?: boolean; literal?: boolean; glob?: string; context?: number; limit: number }): Promise<string>;
	/** Runs a command in a directory of the workspace through bash. */
	exec(command: string, cwd: string, options: ExecOptions): Promise<{ exitCode: number | null }>;
}

async function script(connection: SshConnection, text: string, options: ExecOptions = {}, onDenied?: (why: string) => void): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }> {
	const result = await connection.exec(`bash -c ${shq(text)}`, options);
	if (result.code === OUTSIDE) throw new Error(`the path leads outside the child's remote working tree: ${result.stderr.toString().trim()}`);
	if (result.code === DENIED) {
		const why = result.stderr.toString().trim();
		onDenied?.(why);
		throw new Error(`cadre sandbox: ${why}; it is outside what this sub-agent may read.`);
	}
	return result;
}

function failed(what: string, path: string, result: { code: number | null; stderr: Buffer }): Error {
	return new Error(`${what} ${path} failed on the workspace: ${result.stderr.toString().trim() || `exit ${result.code}`}`);
}

/**
 * The operations of a child confined to `dir`, over `connection` (looked up per call: it may be
 * replaced by a reconnect). `sandboxed`: the shell text its commands run as in its remote sandbox
 * (src/workspaces/remote-sandbox.ts); absent, they run as the remote user. `onDenied`: told what a
 * file tool was refused because the sandbox denies it (the run's `sandbox-blocked` warnings).
 */
export function remoteOps(connection: () => Promise<SshConnection>, dir: RemoteWorkspaceDir, sandboxed?: (command: string) => string, onDenied?: (why: string) => void): RemoteOps {
	const go = async (path: string, body: string, options?: ExecOptions, search = false) => script(await connection(), confined(dir, path, body, search), options, onDenied);
	return {
		dir,
		async readFile(path) {
			const result = await go(path, 'cat -- "$p"');
			if (result.code !== 0) throw failed("reading", path, result);
			return result.stdout;
		},
		async access(path, write = false) {
			const result = await go(path, `test -f "$p" -a -r "$p"${write ? ' -a -w "$p"' : ""}`);
			if (result.code !== 0) throw new Error(`ENOENT: ${path} is not a ${write ? "writable" : "readable"} file on the workspace`);
		},
		async writeFile(path, content) {
			const result = await go(path, 'mkdir -p -- "$(dirname -- "$p")" && cat > "$p"', { stdin: content });
			if (result.code !== 0) throw failed("writing", path, result);
		},
		async mkdir(path) {
			const result = await go(path, 'mkdir -p -- "$p"');
			if (result.code !== 0) throw failed("creating", path, result);
		},
		async exists(path) {
			return (await go(path, 'test -e "$p"')).code === 0;
		},
		async isDirectory(path) {
			const result = await go(path, 'if [ -d "$p" ]; then echo d; elif [ -e "$p" ]; then echo f; else exit 2; fi');
			if (result.code !== 0) throw new Error(`ENOENT: ${path} does not exist on the workspace`);
			return result.stdout.toString().trim() === "d";
		},
		async readdir(path) {
			const result = await go(path, "find \"$p\" -mindepth 1 -maxdepth 1 -printf '%f\\0'");
			if (result.code !== 0) throw failed("listing", path, result);
			return result.stdout.toString().split("\0").filter((name) => name !== "");
		},
		async head(path, bytes) {
			const result = await go(path, `head -c ${Math.max(1, Math.floor(bytes))} -- "$p"`);
			return result.code === 0 ? result.stdout : Buffer.alloc(0);
		},
		async glob(pattern, path, limit) {
			const full = pattern.includes("/") ? pattern : `**/${pattern}`;
			const body = `cd "$p" || exit 1\nshopt -s globstar dotglob nullglob extglob\nPAT=${shq(full)}\ncompgen -G "$PAT" | grep -v -E '(^|/)(\\.git|node_modules)(/|$)' | head -n ${Math.max(1, limit)}`;
			const result = await go(path, body, undefined, true);
			const base = remotePath(dir, path);
			return result.stdout.toString().split("\n").filter((line) => line !== "").map((line) => posix.join(base, line));
		},
		async grep(options) {
			const flags = [options.ignoreCase ? "-i" : "", options.literal ? "-F" : "", options.context ? `-C ${Math.floor(options.context)}` : ""].filter(Boolean).join(" ");
			const globFlag = options.glob ? `--glob ${shq(options.glob)}` : "";
			const includeFlag = options.glob ? `--include=${shq(options.glob)}` : "";
			const body = [
				`cd "$p" 2>/dev/null || cd "$(dirname -- "$p")" || exit 1`,
				`target=.; [ -d "$p" ] || target="$(basename -- "$p")"`,
				`if command -v rg >/dev/null; then rg -n --no-heading --color never ${flags} ${globFlag} -e ${shq(options.pattern)} -- "$target"`,
				`else grep -rnI ${options.literal ? "" : "-E"} ${flags} ${includeFlag} --exclude-dir=.git --exclude-dir=node_modules -e ${shq(options.pattern)} -- "$target"; fi | head -n ${Math.max(1, options.limit)}`,
			].join("\n");
			const result = await go(options.path, body, undefined, true);
			return result.stdout.toString();
		},
		async exec(command, cwd, options) {
			// not through `script`: the command's own exit code is passed on as it is (a refused cwd says so on stderr)
			const body = sandboxed ? sandboxed(command) : `exec bash -c ${shq(command)}`;
			const result = await (await connection()).exec(`bash -c ${shq(confined(dir, cwd, `cd "$p" || exit 1\n${body}`))}`, options);
			return { exitCode: result.code };
		},
	};
}

/** Runs a plain command on the workspace and returns its stdout (throws unless it exits 0). */
export async function remoteRun(connection: SshConnection, command: string): Promise<string> {
	return (await run(connection, command)).toString();
}
