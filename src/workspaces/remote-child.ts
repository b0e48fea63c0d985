/**
 * One child on an SSH workspace (issue 25): the link (the host key checked first), its remote
 * worktree of the parent's base commit on `cadre/<id>`, and the pi tools that run there. A child on
 * a remote workspace always works in its own remote worktree — the parent's files are not on that
 * machine, so "no isolation" cannot mean working in them (ADR 0182). `finish` commits what it left
 * and fetches `cadre/<id>` home; when the link is lost the worktree is kept for `recoverRemoteRun`.
 * A resumed run reopens the worktree and branch of its chain's first run (ADR 0196).
 * A child resolved sandboxed runs its bash in the remote's bubblewrap (src/workspaces/remote-sandbox.ts,
 * ADR 0191), and its file tools refuse what that sandbox denies.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { Diagnostic } from "../core/diagnostics.ts";
import type { SandboxSettings, WorkspaceSpec } from "../files/types.ts";
import { remoteTools } from "../runtime/pi/remote-tools.ts";
import { DEFAULT_OUTPUT_LIMIT, type ShellOutcome, type ShellRunner } from "../runtime/shell-command.ts";
import { type RemoteOps, remoteOps } from "./remote-fs.ts";
import { prepareRemoteSandbox, probeRemoteSandbox, type RemoteSandbox, requireSandbox } from "./remote-sandbox.ts";
import {
	commitRemoteWork,
	createRemoteWorktree,
	discardRemoteWorktree,
	fetchRemoteBranch,
	finishRemoteWorktree,
	type RemoteWorktree,
	remoteWorktreeExists,
	removeRemoteWorktree,
	reopenRemoteWorktree,
} from "./remote-worktree.ts";
import { type SshTarget, shq, type WorkspaceError } from "./ssh-connection.ts";
import { openWorkspaceLink, type WorkspaceLink, type WorkspaceLinkOptions } from "./workspace-link.ts";

/** What one remote child is prepared from. */
export interface RemoteChildOptions {
	/** The workspace's settings name and entry. */
	name: string;
	spec: WorkspaceSpec;
	/** The parent repository's top level, and the commit the child starts from. */
	localRepo: string;
	base: string;
	/** The run id (`cadre/<id>`). */
	id: string;
	/** The child's local cwd as its prompt shows it (paths under it map onto the remote tree). */
	localCwd: string;
	/** The child's tool names. */
	tools: readonly string[];
	/** Its OS sandbox on the remote (ADR 0191), when the resolution says it runs sandboxed; absent or null: none. */
	sandbox?: { readOnly: boolean; settings: SandboxSettings } | null;
	link?: WorkspaceLinkOptions;
	/** A resume: the chain's first run id (its worktree and branch) and the base its kept worktree started from. */
	resume?: { chainId: string; base: string };
}

export interface RemoteChild {
	/** Runs cadre's own command for the child (its verify) in its remote worktree, through its sandbox when it has one. */
	runShell: ShellRunner;
	link: WorkspaceLink;
	worktree: RemoteWorktree;
	/** The pi tools that replace the built-ins. */
	tools: ToolDefinition[];
	/** Its sandbox on the remote, or null when it runs as the remote user. */
	sandbox: RemoteSandbox | null;
	/** `sandbox-blocked` diagnostics: what its file tools were refused because the sandbox denies it. */
	diagnostics(): Diagnostic[];
	/** Settles `workspace-lost` when the host stays away past the grace period. */
	lost: Promise<WorkspaceError>;
	/** Commits what the child left and fetches `cadre/<id>` home; `escaped`: the remote escape check. */
	finish(): Promise<{ branch: string; tip: string; committed: boolean; escaped: string[] }>;
	dispose(): void;
}

/**
 * {@link ShellRunner} over a child's remote operations: the command in its remote worktree, `env`
 * exported first, the output's tail kept, the timeout the channel's. `options.cwd` (the local
 * planned cwd) and `wrap` (a local sandbox) do not apply there; never rejects.
 */
export function remoteShellRunner(ops: RemoteOps): ShellRunner {
	return async (command, options) => {
		const started = performance.now();
		const limit = options.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
		let output = "";
		const exports = Object.entries(options.env ?? {}).map(([name, value]) => `export ${name}=${shq(value)}\n`).join("");
		const end = (exitCode: number | null, timedOut: boolean, startError: string | null): ShellOutcome => ({ exitCode, signal: null, timedOut, startError, durationMs: performance.now() - started, output: output.trimEnd() });
		try {
			const { exitCode } = await ops.exec(`${exports}${command}`, ".", { onData: (data: Buffer) => (output = (output + data.toString("utf8")).slice(-limit)), timeout: options.timeoutMs / 1000 });
			return end(exitCode, false, null);
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			return message.startsWith("timeout:") ? end(null, true, null) : end(null, false, message);
		}
	};
}

/** The SSH target of a settings workspace. */
export function sshTarget(name: string, spec: WorkspaceSpec): SshTarget {
	return { name, host: spec.host, port: spec.port, user: spec.user, identityFile: spec.identityFile, knownHosts: spec.knownHosts };
}

/**
 * Connects (refusing an untrusted host key), probes the remote's sandbox (a child that must run
 * sandboxed is refused `sandbox-unavailable` before anything is made when the host cannot), makes
 * the remote worktree, the child's sandbox there and the tools.
 */
export async function prepareRemoteChild(options: RemoteChildOptions): Promise<RemoteChild> {
	const link = await openWorkspaceLink(sshTarget(options.name, options.spec), options.link);
	try {
		const connection = await link.connection();
		const root = options.spec.root;
		// every connection probes once (the next resolutions see the fact); a sandboxed child needs it
		const probe = probeRemoteSandbox(connection, root);
		if (options.sandbox) requireSandbox(await probe, options.name);
		else void probe.catch(() => undefined);
		const worktree = options.resume
			? await reopenRemoteWorktree(connection, root, options.localRepo, options.resume.chainId, options.resume.base)
			: await createRemoteWorktree(connection, root, options.localRepo, options.id, options.base);
		const branchId = options.resume?.chainId ?? options.id;
		let sandbox: RemoteSandbox | null = null;
		try {
			if (options.sandbox) sandbox = await prepareRemoteSandbox(connection, root, { ...options.sandbox, tools: options.tools, worktree: worktree.dir, clone: worktree.clone, id: options.id });
		} catch (error) {
			// a new tree goes; a resumed one holds the chain's work and stays
			if (!options.resume) await discardRemoteWorktree(connection, worktree).catch(() => undefined);
			throw error;
		}
		const blocked: string[] = [];
		const ops = remoteOps(
			() => link.connection(),
			{ remoteDir: worktree.dir, localCwd: options.localCwd, denied: sandbox?.deniedInTree },
			sandbox ? (command) => (sandbox as RemoteSandbox).command(command) : undefined,
			(why) => blocked.push(why),
		);
		return {
			runShell: remoteShellRunner(ops),
			link,
			worktree,
			sandbox,
			tools: remoteTools({ tools: options.tools, ops, workspace: options.name, sandbox: sandbox?.policy ?? null }),
			lost: link.lost,
			diagnostics: () =>
				blocked.map((why) => ({
					severity: "warning" as const,
					file: null,
					line: null,
					column: null,
					code: "sandbox-blocked" as const,
					message: `the sandbox on workspace ${options.name} refused a file tool: ${why}`,
					hint: "widen the policy in settings sandbox (docs/sandbox.md) if the child needs it",
				})),
			async finish() {
				const live = await link.connection();
				const done = await finishRemoteWorktree(live, root, options.localRepo, branchId, worktree);
				await sandbox?.dispose(live);
				return { branch: worktree.branch, ...done };
			},
			dispose: () => link.close(),
		};
	} catch (error) {
		link.close();
		throw error;
	}
}

/**
 * `cadre worktrees recover` for a remote run: commits what its kept worktree holds, fetches it and
 * removes the remote tree (its work is home, ADR 0196). Null when the tree is gone already
 * (recovered or resumed before).
 */
export async function recoverRemoteRun(options: Omit<RemoteChildOptions, "tools" | "localCwd"> & { worktree: RemoteWorktree }): Promise<string | null> {
	const link = await openWorkspaceLink(sshTarget(options.name, options.spec), options.link);
	try {
		const connection = await link.connection();
		if (!(await remoteWorktreeExists(connection, options.worktree))) return null;
		await commitRemoteWork(connection, options.worktree, options.id);
		const tip = await fetchRemoteBranch(connection, options.spec.root, options.localRepo, options.id, options.base);
		await removeRemoteWorktree(connection, options.worktree);
		return tip;
	} finally {
		link.close();
	}
}
