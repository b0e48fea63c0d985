/**
 * The sandbox part of the explain report (issue 27, ADR 0185): the policy the child would run
 * under (src/resolve/sandbox-policy.ts, the same pure function the runtime enforces), what its
 * tools are to it — bash sandboxed, bash dropped for want of a sandbox, extension tools outside
 * it — and the human lines. The child's worktree and temp dir do not exist before the spawn:
 * placeholders stand for them.
 */
import { type SandboxPolicy, sandboxPolicy } from "./sandbox-policy.ts";
import type { ResolveInput, ResolveResult } from "./types.ts";

/** Where the child's worktree would be (it is created at spawn). */
export const WORKTREE_PLACEHOLDER = "<its worktree>";
/** The child's private temp dir (created at spawn). */
export const TEMP_PLACEHOLDER = "<its private temp dir>";

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
	const hasBash = config.tools.includes("bash");
	const dropped = result.trace.tools?.unsandboxed?.includes("bash") === true;
	const platform = input.parent.sandbox;
	const reason = sandboxed ? null : config.sandbox === "off" ? `sandbox: off (${result.trace.sandbox?.source ?? "?"})` : platform ? (platform.reason ?? "the platform has no OS sandbox") : "the host did not check the platform";
	return {
		sandboxed,
		reason,
		write: policy.write,
		denyRead: policy.denyRead,
		allowRead: policy.allowRead,
		env: policy.env,
		network: policy.network,
		bash: hasBash ? (sandboxed ? "sandboxed" : "unsandboxed") : dropped ? "dropped" : "none",
		outside: policy.outside,
	};
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
		return ["", `sandbox: not sandboxed — ${sandbox.reason}; its tools run with your access.${bash}`];
	}
	const lines = [
		"",
		"sandbox: sandboxed (the OS sandbox; docs/sandbox.md)",
		`  writes: ${list(sandbox.write, "none (read-only)")}`,
		`  reads denied: ${list(sandbox.denyRead, "none")}${sandbox.allowRead.length > 0 ? ` (except ${sandbox.allowRead.join(", ")})` : ""}`,
		`  environment: no variable matching ${sandbox.env.deny.join(", ")}${sandbox.env.allow.length > 0 ? `; passed anyway: ${sandbox.env.allow.join(", ")}` : ""}`,
		`  network: ${list(sandbox.network, "none")}`,
	];
	if (sandbox.bash === "sandboxed") lines.push(`  bash: kept, inside the sandbox${sandbox.write.length === 0 ? " (its commands cannot write)" : ""}`);
	if (sandbox.outside.length > 0) lines.push(`  outside the sandbox: ${sandbox.outside.join(", ")} (extension tools run in the parent's process, with your access)`);
	return lines;
}
