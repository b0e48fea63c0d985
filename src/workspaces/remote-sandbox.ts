/**
 * The OS sandbox of a child on an SSH workspace (issue 25, ADR 0191): the remote's own bubblewrap
 * plus @anthropic-ai/sandbox-runtime's static seccomp helper (`vendor/seccomp/<arch>/apply-seccomp`),
 * uploaded over SFTP into `<root>/.cadre/` once per host and checked by its SHA-256 on every
 * connection. The library's wrap reads the local file system (it stats, resolves and searches the
 * paths it mounts), so the bubblewrap argv is built here the way it builds its own — read-only
 * root, the write roots bound, denied directories under a tmpfs and denied files under /dev/null,
 * what is re-opened bound again after them, `--unshare-net`, new pid and user namespaces with its
 * `capabilityArgs`, the helper between bubblewrap and the command — from facts probed on the remote.
 *
 * - {@link probeRemoteSandbox}: one round trip per connection (cached on it): `command -v bwrap`,
 *   `uname -m`, uid, home, bounding capabilities, and whether bubblewrap actually starts a sandbox;
 *   the helper uploaded when its hash differs. The answer also becomes the workspace's fact for
 *   the next resolutions in this process ({@link knownRemoteSandbox}).
 * - {@link prepareRemoteSandbox}: one child's policy on the remote (src/resolve/remote-sandbox-policy.ts),
 *   its private remote temp dir, the real paths of what it denies, and the shell text its commands run as.
 */
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, posix } from "node:path";
import type { SandboxSettings, WorkspaceSpec } from "../files/types.ts";
import { isWithin } from "../resolve/sandbox-policy.ts";
import { type RemoteSandboxPolicy, remoteSandboxPolicy } from "../resolve/remote-sandbox-policy.ts";
import { remoteSandboxHint } from "../resolve/sandbox.ts";
import type { SandboxPlatform } from "../resolve/types.ts";
import { hostName } from "./known-hosts.ts";
import { connectSsh, run, type SshConnection, type SshTarget, shq } from "./ssh-connection.ts";

/** The remote architectures the library ships a helper for (`uname -m` → its vendor folder). */
const HELPER_ARCH: Record<string, string> = { x86_64: "x64", amd64: "x64", aarch64: "arm64", arm64: "arm64" };

/** What one connection's probe found. */
export interface RemoteSandboxProbe extends SandboxPlatform {
	bwrap: string | null;
	arch: string;
	uid: number;
	/** The remote user's home directory, and the workspace root by its real path. */
	home: string;
	root: string;
	bash: string;
	/** Whether CAP_SETFCAP is in the remote shell's bounding or inheritable set (for `capabilityArgs`). */
	hasSetfcap: boolean;
	/** The verified helper's remote path, or null. */
	helper: string | null;
}

/** The library's pure helpers cadre builds the argv with (loaded once). */
interface LibraryParts {
	capabilityArgs(options: { euid: number | undefined; hasSetfcap: boolean; usesSeccompHelper: boolean }): string[];
	boundingCapabilitiesFromStatus(status: string): bigint | undefined;
	CAP_SETFCAP: number;
	DANGEROUS_FILES: readonly string[];
	getDangerousDirectories(): string[];
}

let parts: Promise<LibraryParts> | null = null;
function library(): Promise<LibraryParts> {
	parts ??= Promise.all([import("@anthropic-ai/sandbox-runtime/dist/sandbox/linux-sandbox-utils.js"), import("@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js")]).then(([linux, utils]) => ({
		capabilityArgs: linux.capabilityArgs,
		boundingCapabilitiesFromStatus: linux.boundingCapabilitiesFromStatus,
		CAP_SETFCAP: linux.CAP_SETFCAP,
		DANGEROUS_FILES: utils.DANGEROUS_FILES,
		getDangerousDirectories: utils.getDangerousDirectories,
	}));
	return parts;
}

/** The library's helper for a vendor arch, read once: its bytes and SHA-256. */
const helpers = new Map<string, { path: string; sha256: string }>();
function localHelper(arch: string): { path: string; sha256: string } | null {
	const known = helpers.get(arch);
	if (known) return known;
	try {
		const pkg = createRequire(import.meta.url).resolve("@anthropic-ai/sandbox-runtime/package.json");
		const path = join(dirname(pkg), "vendor", "seccomp", arch, "apply-seccomp");
		const found = { path, sha256: createHash("sha256").update(readFileSync(path)).digest("hex") };
		helpers.set(arch, found);
		return found;
	} catch {
		return null;
	}
}

/** The workspace's facts by host and root: the last probe of any connection to it. */
const facts = new Map<string, RemoteSandboxProbe>();
const factKey = (target: Pick<SshTarget, "user" | "host" | "port">, root: string) => `${target.user}@${hostName(target.host, target.port)}:${root}`;

/** The probed facts of the given workspaces this process knows (the resolution's `remoteSandbox`). */
export function knownRemoteSandbox(workspaces: Readonly<Record<string, WorkspaceSpec>>, names: readonly string[] = Object.keys(workspaces)): Record<string, SandboxPlatform> {
	const out: Record<string, SandboxPlatform> = {};
	for (const name of names) {
		const spec = workspaces[name];
		const fact = spec ? facts.get(factKey(spec, spec.root)) : undefined;
		if (fact) out[name] = { available: fact.available, reason: fact.reason, hint: fact.hint };
	}
	return out;
}

/** Forgets what was probed (tests). */
export function forgetRemoteSandboxFacts(): void {
	facts.clear();
}

/** Each connection's probe, made once. */
const probes = new WeakMap<SshConnection, Promise<RemoteSandboxProbe>>();

function probeScript(root: string): string {
	const helperDir = posix.join(root, ".cadre");
	return [
		`b=$(command -v bwrap 2>/dev/null); echo "BWRAP=$b"; echo "ARCH=$(uname -m)"; echo "UID=$(id -u)"; echo "HOME=$HOME"; echo "BASH=$(command -v bash)"`,
		`echo "ROOT=$(realpath -m -- ${shq(root)})"`,
		`grep -E '^Cap(Bnd|Inh):' /proc/self/status 2>/dev/null`,
		// bubblewrap actually starting a sandbox with the namespaces the wrap uses, not only being on PATH
		`if [ -n "$b" ]; then if out=$("$b" --ro-bind / / --dev /dev --unshare-pid --unshare-user --unshare-net --proc /proc -- true 2>&1); then echo WORKS; else echo "FAILS=$(printf %s "$out" | head -n 1)"; fi; fi`,
		`mkdir -p ${shq(helperDir)} && for f in ${shq(helperDir)}/apply-seccomp-*; do [ -f "$f" ] && echo "HASH=$(sha256sum -- "$f")"; done; true`,
	].join("\n");
}

function field(out: string, name: string): string {
	return new RegExp(`^${name}=(.*)$`, "m").exec(out)?.[1]?.trim() ?? "";
}

/** Uploads the helper unless the remote copy's hash is the library's; returns its path or why not. */
async function ensureHelper(connection: SshConnection, helperDir: string, arch: string, out: string): Promise<string | { error: string }> {
	const local = localHelper(arch);
	if (!local) return { error: `the seccomp helper for ${arch} is not in @anthropic-ai/sandbox-runtime` };
	const remote = posix.join(helperDir, `apply-seccomp-${arch}`);
	const hashes = [...out.matchAll(/^HASH=([0-9a-f]{64})\s+(.+)$/gm)].map((m) => [m[2], m[1]]);
	if (hashes.some(([path, hash]) => path === remote && hash === local.sha256)) return remote;
	const temp = `${remote}.${randomBytes(4).toString("hex")}.tmp`;
	const sftp = await connection.sftp();
	await new Promise<void>((resolve, reject) => sftp.fastPut(local.path, temp, (error) => (error ? reject(error) : resolve())));
	const check = (await run(connection, `bash -c ${shq(`chmod 755 ${shq(temp)} && mv -f ${shq(temp)} ${shq(remote)} && sha256sum -- ${shq(remote)}`)}`)).toString();
	return check.startsWith(local.sha256) ? remote : { error: `the uploaded seccomp helper ${remote} does not have the library's hash` };
}

async function probeOnce(connection: SshConnection, root: string): Promise<RemoteSandboxProbe> {
	const out = (await run(connection, `bash -c ${shq(probeScript(root))}`)).toString();
	const bwrap = field(out, "BWRAP") || null;
	const uname = field(out, "ARCH");
	const arch = HELPER_ARCH[uname] ?? "";
	const status = out.split("\n").filter((line) => line.startsWith("Cap")).join("\n");
	const lib = await library();
	const caps = lib.boundingCapabilitiesFromStatus(status);
	const realRoot = field(out, "ROOT") || root;
	const target = connection.target;
	const base = {
		bwrap,
		arch,
		uid: Number(field(out, "UID")),
		home: field(out, "HOME"),
		root: realRoot,
		bash: field(out, "BASH") || "/bin/bash",
		hasSetfcap: caps !== undefined && ((caps >> BigInt(lib.CAP_SETFCAP)) & 1n) === 1n,
		hint: remoteSandboxHint(target.name, target.host),
	};
	let reason: string | null = null;
	let helper: string | null = null;
	if (!bwrap) reason = `bwrap is not on PATH on ${target.host}`;
	else if (!/^WORKS$/m.test(out)) reason = `bwrap on ${target.host} cannot start a sandbox (${field(out, "FAILS") || "it failed"})`;
	else if (!arch) reason = `no seccomp helper for ${uname || "its architecture"} on ${target.host}`;
	else {
		const found = await ensureHelper(connection, posix.join(realRoot, ".cadre"), arch, out);
		if (typeof found === "string") helper = found;
		else reason = found.error;
	}
	const probe: RemoteSandboxProbe = { ...base, available: reason === null, reason, helper };
	facts.set(factKey(target, root), probe);
	return probe;
}

/** The connection's probe of the remote sandbox (once per connection). */
export function probeRemoteSandbox(connection: SshConnection, root: string): Promise<RemoteSandboxProbe> {
	let probe = probes.get(connection);
	if (!probe) {
		probe = probeOnce(connection, root);
		probes.set(connection, probe);
		probe.catch(() => probes.delete(connection));
	}
	return probe;
}

/**
 * The facts of `names` for a resolution: those known in this process, the others probed now over a
 * short connection each (in parallel). A workspace that cannot be reached stays unknown: its spawn
 * fails when it is prepared, with the connection's own error.
 */
export async function probeWorkspaces(workspaces: Readonly<Record<string, WorkspaceSpec>>, names: readonly string[]): Promise<Record<string, SandboxPlatform>> {
	const unknown = names.filter((name) => workspaces[name] && !facts.has(factKey(workspaces[name] as WorkspaceSpec, (workspaces[name] as WorkspaceSpec).root)));
	await Promise.all(
		unknown.map(async (name) => {
			const spec = workspaces[name] as WorkspaceSpec;
			const connection = await connectSsh({ name, host: spec.host, port: spec.port, user: spec.user, identityFile: spec.identityFile, knownHosts: spec.knownHosts }).catch(() => null);
			if (!connection) return;
			try {
				await probeRemoteSandbox(connection, spec.root);
			} catch {
				// unknown: the runtime probes again when it prepares the child
			} finally {
				connection.close();
			}
		}),
	);
	return knownRemoteSandbox(workspaces, names);
}

/** One mount of the argv: bound read-write, bound read-only, hidden under a tmpfs, or a file hidden under /dev/null. */
export interface Mount {
	path: string;
	kind: "bind" | "ro" | "tmpfs" | "null";
}

/** What the argv needs of a child's policy, with denied paths as found on the remote (real paths, directory or file). */
export interface ResolvedPolicy {
	write: readonly string[];
	/** Denied paths that exist, by real path. */
	denied: readonly { path: string; dir: boolean }[];
	/** Paths re-opened read-only inside a denied one. */
	allowRead: readonly string[];
	/** Existing files and directories in the write roots that stay read-only (the library's mandatory denies). */
	protect: readonly string[];
	tempDir: string | null;
}

const depth = (path: string) => (path === "/" ? 0 : path.split("/").length);
const ORDER_OF: Record<Mount["kind"], number> = { tmpfs: 0, null: 0, bind: 1, ro: 2 };

/** The mounts in the order bubblewrap applies them: shallow first, so a deeper one lands on top of the one it is inside. Pure. */
export function mountsOf(policy: ResolvedPolicy): Mount[] {
	const mounts: Mount[] = [];
	for (const path of policy.write) mounts.push({ path, kind: "bind" });
	for (const { path, dir } of policy.denied) mounts.push({ path, kind: dir ? "tmpfs" : "null" });
	for (const path of policy.allowRead) if (!policy.write.includes(path) && policy.denied.some((d) => isWithin(path, d.path) && path !== d.path)) mounts.push({ path, kind: "ro" });
	for (const path of policy.protect) mounts.push({ path, kind: "ro" });
	return mounts.map((mount, index) => ({ mount, index })).sort((a, b) => depth(a.mount.path) - depth(b.mount.path) || ORDER_OF[a.mount.kind] - ORDER_OF[b.mount.kind] || a.index - b.index).map(({ mount }) => mount);
}

/** The bubblewrap arguments of a child (everything before `--`). Pure, given the library's `capabilityArgs` result. */
export function bwrapArgs(policy: ResolvedPolicy, capabilities: readonly string[]): string[] {
	const args = ["--new-session", "--die-with-parent", "--unshare-net", "--ro-bind", "/", "/"];
	for (const mount of mountsOf(policy)) {
		if (mount.kind === "bind") args.push("--bind", mount.path, mount.path);
		else if (mount.kind === "ro") args.push("--ro-bind", mount.path, mount.path);
		else if (mount.kind === "tmpfs") args.push("--tmpfs", mount.path);
		else args.push("--ro-bind", "/dev/null", mount.path);
	}
	args.push("--dev", "/dev", "--unshare-pid", "--unshare-user", ...capabilities, "--proc", "/proc", "--unsetenv", "SRT_ALLOW_NESTED_USERNS");
	if (policy.tempDir) args.push("--setenv", "TMPDIR", policy.tempDir);
	return args;
}

/** A bash `case` pattern for a credential pattern (`*` any characters, the rest literal). */
function casePattern(pattern: string): string {
	return pattern.toUpperCase().split("*").map((part) => (part === "" ? "" : shq(part))).join("*");
}

/** Shell lines that unset every exported credential variable of `policy.env` (the sandboxEnvironment rule, on the remote). Pure. */
export function envScrub(env: RemoteSandboxPolicy["env"]): string {
	const deny = env.deny.map(casePattern).join("|");
	const allow = env.allow.length > 0 ? `case "$__v" in ${env.allow.map(shq).join("|")}) continue;; esac; ` : "";
	return `for __v in $(compgen -e); do ${allow}case "\${__v^^}" in ${deny}) unset "$__v";; esac; done; unset __v`;
}

/** One child's sandbox on its workspace. */
export interface RemoteSandbox {
	policy: RemoteSandboxPolicy;
	/** Real paths denied inside the worktree, which the file tools refuse too. */
	deniedInTree: string[];
	/** The shell text that runs `command` in the sandbox (after the confining prologue's `cd`). */
	command(command: string): string;
	/** Removes the private temp dir. */
	dispose(connection: SshConnection | null): Promise<void>;
}

/** The probe of a host that can sandbox, else throws `sandbox-unavailable` (fail closed). */
export function requireSandbox(probe: RemoteSandboxProbe, workspace: string): RemoteSandboxProbe & { bwrap: string; helper: string } {
	if (!probe.available || !probe.helper || !probe.bwrap) {
		throw Object.assign(new Error(`Spawn refused (sandbox-unavailable): the child must run sandboxed, but SSH workspace ${workspace} cannot sandbox: ${probe.reason}; ${probe.hint}`), { code: "sandbox-unavailable" });
	}
	return probe as RemoteSandboxProbe & { bwrap: string; helper: string };
}

/** What one child's remote sandbox is prepared from. */
export interface RemoteSandboxOptions {
	readOnly: boolean;
	tools: readonly string[];
	settings: SandboxSettings;
	worktree: string;
	clone: string;
	id: string;
}

/** The child's policy, temp dir and wrap; throws `sandbox-unavailable` when the probe says the host cannot (fail closed). */
export async function prepareRemoteSandbox(connection: SshConnection, root: string, options: RemoteSandboxOptions): Promise<RemoteSandbox> {
	const probe = requireSandbox(await probeRemoteSandbox(connection, root), connection.target.name);
	// the worktree and the clone by real path: bubblewrap mounts real paths
	const given = posix.normalize(root).replace(/(.)\/+$/, "$1");
	const real = (path: string) => (isWithin(path, given) ? posix.join(probe.root, posix.relative(given, path)) : path);
	const worktree = real(options.worktree);
	const tempDir = options.readOnly ? null : posix.join(probe.root, "tmp", `sandbox-${options.id}`);
	const policy = remoteSandboxPolicy({ readOnly: options.readOnly, tools: options.tools, worktree, clone: real(options.clone), root: probe.root, helperDir: posix.join(probe.root, ".cadre"), home: probe.home, tempDir, settings: options.settings });
	const lib = await library();
	const protect = [...lib.DANGEROUS_FILES, ...lib.getDangerousDirectories(), ".git"].map((name) => posix.join(worktree, name));
	const lines = [
		tempDir ? `mkdir -p -m 700 ${shq(tempDir)} || exit 1` : "",
		`for p in ${policy.denyRead.map(shq).join(" ")}; do if [ -e "$p" ]; then r=$(realpath -e -- "$p") || continue; if [ -d "$r" ]; then echo "D $r"; else echo "F $r"; fi; fi; done`,
		`for p in ${protect.map(shq).join(" ")}; do if [ -e "$p" ] && [ ! -L "$p" ]; then echo "P $p"; fi; done`,
	];
	const out = (await run(connection, `bash -c ${shq(lines.filter(Boolean).join("\n"))}`)).toString();
	const denied = [...out.matchAll(/^([DF]) (.+)$/gm)].map((m) => ({ path: m[2] as string, dir: m[1] === "D" }));
	const resolved: ResolvedPolicy = { write: policy.write, denied, allowRead: policy.allowRead, protect: [...out.matchAll(/^P (.+)$/gm)].map((m) => m[1] as string), tempDir };
	const capabilities = lib.capabilityArgs({ euid: probe.uid, hasSetfcap: probe.hasSetfcap, usesSeccompHelper: true });
	const argv = [probe.bwrap, ...bwrapArgs(resolved, capabilities), "--", probe.bash, "-c"].map(shq).join(" ");
	const scrub = envScrub(policy.env);
	const helper = shq(probe.helper);
	const bash = shq(probe.bash);
	const inTree = (path: string) => isWithin(path, worktree) && path !== worktree;
	const deniedInTree = [...new Set([...denied.map((d) => d.path), ...policy.denyRead].filter(inTree))];
	return {
		policy,
		deniedInTree,
		command: (command) => `${scrub}\nexec ${argv} ${shq(`SRT_ALLOW_NESTED_USERNS=0 ${helper} ${bash} -c ${shq(command)}`)}`,
		async dispose(live) {
			if (tempDir && live?.alive) await live.exec(`rm -rf -- ${shq(tempDir)}`).catch(() => undefined);
		},
	};
}
