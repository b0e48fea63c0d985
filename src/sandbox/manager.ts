/**
 * The one initialisation of @anthropic-ai/sandbox-runtime per parent process (ADR 0150), loaded on
 * first use, and the wrap of one child's commands. The library's session config holds no policy
 * of its own: every child's policy is the per-wrap `customConfig`. Its network filter (the proxy)
 * starts with the session; a child with no network gets no bridge into it — only bubblewrap's
 * `--unshare-net` (ADR 0151).
 */
import type { SandboxRuntimeConfig } from "@anthropic-ai/sandbox-runtime";
import { type SandboxPolicy, sandboxEnvironment } from "../resolve/sandbox-policy.ts";

type Library = typeof import("@anthropic-ai/sandbox-runtime");
let started: Promise<Library["SandboxManager"]> | null = null;
/** Whether the session's config has an (empty) network list: set for the first child with network. */
let networkConfigured = false;
/** The library's session config: no policy of its own (every child's is its wrap's `customConfig`). */
const SESSION_FILESYSTEM = { denyRead: [], allowWrite: [], denyWrite: [] };
/** Children whose wrap is held (between {@link wrapChild} and {@link releaseChild}). */
let liveWraps = 0;
/** How long the one start took (bench, results), ms. */
export let startupMs: number | null = null;

/** Starts the library once per process; later calls get the same manager. */
export function sandboxManager(): Promise<Library["SandboxManager"]> {
	if (!started) {
		started = (async () => {
			const begun = performance.now();
			const { SandboxManager } = await import("@anthropic-ai/sandbox-runtime");
			// No session-wide network list: a child's network is decided per wrap (undefined is the
			// library's "no network config", which its schema types as required).
			const base = { network: { allowedDomains: undefined as unknown as string[], deniedDomains: [] }, filesystem: SESSION_FILESYSTEM };
			await SandboxManager.initialize(base as SandboxRuntimeConfig);
			networkConfigured = false;
			startupMs = performance.now() - begun;
			return SandboxManager;
		})();
		started.catch(() => (started = null));
	}
	return started;
}

/** The command every wrap runs: the real command comes in this variable, so one wrap serves every call. */
export const COMMAND_VARIABLE = "CADRE_SANDBOX_COMMAND";

/** One child's wrapped shell command, computed once: run it with {@link COMMAND_VARIABLE} set. */
export interface ChildWrap {
	command: string;
	/** The network allow-list id registered for the child (unregister on dispose), or null. */
	networkId: string | null;
}

/**
 * How `command` runs in a child's sandbox: its wrap, with the command in {@link COMMAND_VARIABLE},
 * the environment without credential variables and `TMPDIR` the child's temp dir. The bash tool's
 * spawn hook and cadre's own commands for the child (its `verify`) both run through it.
 */
export function sandboxedCommand(wrap: ChildWrap, policy: SandboxPolicy, command: string, env: Readonly<Record<string, string | undefined>>): { command: string; env: Record<string, string> } {
	return { command: wrap.command, env: { ...commandEnvironment(policy, env), [COMMAND_VARIABLE]: command } };
}

/** The environment a command gets in a child's sandbox: no credential variables, `TMPDIR` the child's temp dir. */
export function commandEnvironment(policy: SandboxPolicy, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
	return { ...sandboxEnvironment(env, policy), ...(policy.tempDir ? { TMPDIR: policy.tempDir } : {}) };
}

/**
 * Wraps the fixed command for `policy` (extra write denies: files hard-linked into the write roots).
 * Linux without network: bubblewrap's `--unshare-net` is added to the wrap and no proxy socket is bound.
 */
export async function wrapChild(policy: SandboxPolicy, extraDenied: readonly string[]): Promise<ChildWrap> {
	const manager = await sandboxManager();
	liveWraps++;
	try {
		return await wrapWith(manager, policy, extraDenied);
	} catch (error) {
		liveWraps--;
		throw error;
	}
}

async function wrapWith(manager: Library["SandboxManager"], policy: SandboxPolicy, extraDenied: readonly string[]): Promise<ChildWrap> {
	const filesystem = {
		denyRead: [...policy.denyRead, ...extraDenied],
		allowRead: [...policy.allowRead],
		allowWrite: [...policy.write],
		denyWrite: [...extraDenied],
	};
	const inner = `eval "$${COMMAND_VARIABLE}"`;
	if (policy.network.length > 0) {
		// The proxy's filter reads the session's own allow list before a command's: without one
		// (the no-network session above) it fails every request. An empty list allows nothing by
		// itself; children wrapped from now on get the bridge (still with no host of their own).
		if (!networkConfigured) {
			manager.updateConfig({ network: { allowedDomains: [], deniedDomains: [] }, filesystem: SESSION_FILESYSTEM } as SandboxRuntimeConfig);
			networkConfigured = true;
		}
		const networkId = (await import("node:crypto")).randomBytes(16).toString("base64url");
		manager.registerCommandNetworkLists(networkId, { allowedDomains: [...policy.network] });
		const command = await manager.wrapWithSandbox(inner, "bash", { filesystem, network: { allowedDomains: [], deniedDomains: [] } } as Partial<SandboxRuntimeConfig>, undefined, { commandId: networkId });
		return { command, networkId };
	}
	if (process.platform !== "linux") {
		// macOS: the profile routes through the proxy, whose empty list refuses every connection.
		const command = await manager.wrapWithSandbox(inner, "bash", { filesystem, network: { allowedDomains: [], deniedDomains: [] } } as Partial<SandboxRuntimeConfig>);
		return { command, networkId: null };
	}
	const command = await manager.wrapWithSandbox(inner, "bash", { filesystem } as Partial<SandboxRuntimeConfig>);
	const start = /^(\S*bwrap) /.exec(command);
	// Fail closed: a wrap cadre cannot add the network cut to never runs.
	if (!start) throw new Error("cadre: the sandbox wrap does not start bubblewrap; refusing to run without the network cut");
	return { command: `${start[1]} --unshare-net ${command.slice(start[0].length)}`, networkId: null };
}

/** Releases what {@link wrapChild} took (the network list; the library's mount points). */
export async function releaseChild(wrap: ChildWrap): Promise<void> {
	const manager = await sandboxManager();
	liveWraps = Math.max(0, liveWraps - 1);
	if (wrap.networkId) manager.unregisterCommandNetworkLists(wrap.networkId);
	manager.cleanupAfterCommand();
}

/**
 * A host (a pi session, `cadre run`) is closing: when no child holds a wrap, the library's session
 * (its proxy servers, which keep the process alive) is ended; the next child starts it again.
 */
export async function closeSandboxWhenIdle(): Promise<void> {
	if (!started || liveWraps > 0) return;
	const manager = await started.catch(() => null);
	started = null;
	await manager?.reset().catch(() => {});
}

/** How many children hold a wrap now (taken by {@link wrapChild}, not yet released). */
export function heldWraps(): number {
	return liveWraps;
}
