/**
 * The sandbox part of the explain report (issue 27, ADR 0185): the policy the child would run
 * under (src/resolve/sandbox-policy.ts, the same pure function the runtime enforces), what its
 * tools are to it — bash sandboxed, bash dropped for want of a sandbox, extension tools outside
 * it — and the human lines. The child's worktree and temp dir do not exist before the spawn:
 * placeholders stand for them.
 */
import { posix } from "node:path";
import { LOCAL_WORKSPACE } from "../files/workspace-settings.ts";
import { remoteSandboxPolicy } from "./remote-sandbox-policy.ts";
import { type SandboxPolicy, sandboxPolicy } from "./sandbox-policy.ts";
import type { ResolveInput, ResolveResult } from "./types.ts";

/** Where the child's worktree would be (it is created at spawn). */
export const WORKTREE_PLACEHOLDER = "<its worktree>";
/** The child's private temp dir (created at spawn). */
export const TEMP_PLACEHOLDER = "<its private temp dir>";
/** Where an SSH workspace's child would work, and its temp dir there (issue 25). */
export const REMOTE_WORKTREE_PLACEHOLDER = "<root>/worktrees/<id>";
export const REMOTE_TEMP_PLACEHOLDER = "<root>/tmp/sandbox-<id>";

/** The home directory and pi's agent dir the policy's denied paths are under. */
export interface ExplainDirs {
	homeDir: string;
	agentDir: string;
}

/** `sandbox` of the `--json` object. */
export interface ExplainSandbox {
	/** Whether the child's tools would run inside the OS sandbox. */
	sandboxed: boolean;
	/** Why not, when not (`sandbox: off`, the platform's reason); null when sandboxed. */
	reason: string | null;
	/** The policy: writes, denied and re-allowed reads, the environment's credential patterns, the network. */
	write: string[];
	denyRead: string[];
	allowRead: string[];
	env: SandboxPolicy["env"];
	network: string[];
	/** `sandboxed`: the child has bash, in the sandbox; `unsandboxed`: bash with the user's access; `dropped`: no bash because nothing sandboxes it; `none`. */
	bash: "sandboxed" | "unsandboxed" | "dropped" | "none";
	/** The child's tools that run outside the sandbox: extension tools (they run in the parent's process). */
	outside: string[];
	/**
	 * On an SSH workspace (issue 25, ADR 0191): where its sandbox is the remote's bubblewrap, each
	 * workspace's probe (`able`, `unable`, `not probed`); the policy above is the remote one (the
	 * first workspace's root; `~` is the remote home). Absent: the child runs here.
	 */
	remote?: { workspaces: { name: string; probe: "able" | "unable" | "not probed" }[]; networkRefused: string[] };
}

/** The sandbox facts of a resolved spawn, or null when it is refused. */
export function explainSandbox(result: ResolveResult, input: ResolveInput, dirs: ExplainDirs): ExplainSandbox | null {
	const config = result.config;
	if (!config) return null;
	const sandboxed = config.sandboxed === true;
	const isolated = config.isolation === "worktree";
	const writeRoot = isolated ? WORKTREE_PLACEHOLDER : (input.parent.repoRoot ?? input.loaded.projectDir ?? input.parent.cwd);
	const policy = sandboxPolicy({
		config,
		cwd: input.parent.cwd,
		writeRoot,
		homeDir: dirs.homeDir,
		agentDir: dirs.agentDir,
		baseDir: input.loaded.projectDir ?? input.parent.cwd,
		settings: input.loaded.settings.sandbox,
		tempDir: TEMP_PLACEHOLDER,
	});
	const remoteNames = (config.workspace ?? []).filter((name) => name !== LOCAL_WORKSPACE);
	const remote = remoteNames.length > 0 && !(config.workspace ?? []).includes(LOCAL_WORKSPACE) ? remoteExplain(config, input, remoteNames) : null;
	const shown = remote?.policy ?? policy;
	const hasBash = config.tools.includes("bash");
	const dropped = result.trace.tools?.unsandboxed?.includes("bash") === true;
	const platform = input.parent.sandbox;
	const reason = sandboxed ? null : config.sandbox === "off" ? `sandbox: off (${result.trace.sandbox?.source ?? "?"})` : platform ? (platform.reason ?? "the platform has no OS sandbox") : "the host did not check the platform";
	return {
		sandboxed,
		reason: remote && !sandboxed && config.sandbox !== "off" ? (remote.reason ?? reason) : reason,
		write: shown.write,
		denyRead: shown.denyRead,
		allowRead: shown.allowRead,
		env: shown.env,
		network: shown.network,
		bash: hasBash ? (sandboxed ? "sandboxed" : "unsandboxed") : dropped ? "dropped" : "none",
		outside: shown.outside,
		...(remote ? { remote: remote.facts } : {}),
	};
}

/** The remote policy and probes of a child that runs only on SSH workspaces. */
function remoteExplain(config: NonNullable<ResolveResult["config"]>, input: ResolveInput, names: string[]) {
	const workspaces = input.loaded.settings.workspaces ?? {};
	const root = workspaces[names[0] as string]?.root ?? "<root>";
	const readOnly = config.capabilityMode === "read-only";
	const policy = remoteSandboxPolicy({
		readOnly,
		tools: config.tools,
		worktree: REMOTE_WORKTREE_PLACEHOLDER.replace("<root>", root),
		clone: posix.join(root, "repos", "<its clone>"),
		root,
		helperDir: posix.join(root, ".cadre"),
		home: "~",
		tempDir: readOnly ? null : REMOTE_TEMP_PLACEHOLDER.replace("<root>", root),
		settings: input.loaded.settings.sandbox,
	});
	const probed = input.parent.remoteSandbox ?? {};
	const list = names.map((name) => ({ name, probe: probed[name] ? (probed[name].available ? "able" : "unable") : "not probed" }) as const);
	const unable = names.filter((name) => probed[name] && !probed[name].available).map((name) => `SSH workspace ${name} cannot sandbox: ${probed[name]?.reason ?? "no working bubblewrap"}`);
	return { policy, facts: { workspaces: list, networkRefused: policy.networkRefused }, reason: unable.join("; ") || null };
}

/** The `tools` row's value: bash and the tools outside the sandbox marked. */
export function toolsCell(tools: readonly string[], sandbox: ExplainSandbox | null): string | null {
	if (!sandbox) return null;
	const shown = tools.map((tool) => {
		if (tool === "bash") return sandbox.sandboxed ? "bash (sandboxed)" : "bash (not sandboxed)";
		return sandbox.outside.includes(tool) ? `${tool} (outside the sandbox)` : tool;
	});
	const list = shown.length === 0 ? "(none)" : shown.join(", ");
	return sandbox.bash === "dropped" ? `${list}; no bash: not sandboxed` : list;
}

/** The lines below the table: the policy in words. */
export function sandboxLines(sandbox: ExplainSandbox): string[] {
	const list = (items: readonly string[], none: string) => (items.length === 0 ? none : items.join(", "));
	if (!sandbox.sandboxed) {
		const bash =
			sandbox.bash === "dropped"
				? " A read-only child keeps bash only in the sandbox: this one has none."
				: sandbox.bash === "unsandboxed"
					? " Its bash runs with your access."
					: "";
		const access = sandbox.remote ? "its tools run with the remote user's access there" : "its tools run with your access";
		return ["", `sandbox: not sandboxed${sandbox.remote ? " on the remote" : ""} — ${sandbox.reason}; ${access}.${bash}`];
	}
	const remote = sandbox.remote;
	const probes = remote?.workspaces.map((w) => `${w.name}: ${w.probe === "able" ? "its bubblewrap works" : w.probe === "not probed" ? "not probed yet — checked when the child is placed, refused if it cannot" : "cannot"}`).join("; ");
	const lines = [
		"",
		remote ? `sandbox: sandboxed on the remote (its bubblewrap and the library's seccomp helper; ${probes}; docs/sandbox.md)` : "sandbox: sandboxed (the OS sandbox; docs/sandbox.md)",
		`  writes: ${list(sandbox.write, "none (read-only)")}`,
		`  reads denied: ${list(sandbox.denyRead, "none")}${sandbox.allowRead.length > 0 ? ` (except ${sandbox.allowRead.join(", ")})` : ""}`,
		`  environment: no variable matching ${sandbox.env.deny.join(", ")}${sandbox.env.allow.length > 0 ? `; passed anyway: ${sandbox.env.allow.join(", ")}` : ""}`,
		`  network: ${list(sandbox.network, "none")}${remote && remote.networkRefused.length > 0 ? ` (settings sandbox.allowNetwork ${remote.networkRefused.join(", ")} is not opened on a remote)` : ""}`,
	];
	if (sandbox.bash === "sandboxed") lines.push(`  bash: kept, inside the sandbox${sandbox.write.length === 0 ? " (its commands cannot write)" : ""}`);
	if (sandbox.outside.length > 0) lines.push(`  outside the sandbox: ${sandbox.outside.join(", ")} (extension tools run in the parent's process, with your access)`);
	return lines;
}
