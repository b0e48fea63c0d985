/**
 * The OS sandbox policy of one child (ADR 0150), computed from its resolution as a pure function:
 * what its commands and file tools may write and read, which environment variables they keep and
 * which domains they reach. `explain` shows it; the runtime (src/sandbox/) enforces exactly it.
 *
 * - writes: the child's write root (its worktree when isolated, else the project) and a private
 *   temp dir; nothing for a read-only child;
 * - reads denied: the user's secrets, pi's agent dir (auth.json, sessions, other children's
 *   worktrees) except the child's own write root, plus settings `sandbox.denyRead`;
 * - environment: no variable matching {@link CREDENTIAL_ENV_PATTERNS}, except settings `sandbox.env.allow`;
 * - network: none, except settings `sandbox.allowNetwork` (user settings or a trusted project only).
 */
import { isAbsolute, join, resolve as resolvePath, sep } from "node:path";
import { DELEGATION_TOOLS } from "../core/cadre-tools.ts";
import type { SandboxSettings } from "../files/types.ts";
import type { EffectiveConfig } from "./types.ts";

/** The user's secrets, relative to the home directory: never readable by a sandboxed child. */
export const SECRET_PATHS = [".ssh", ".aws", ".gnupg", ".config/gh", ".netrc", ".docker", ".kube", ".git-credentials", ".npmrc", ".pi"];

/**
 * Credential variables, removed from every command's environment (`*` matches any characters,
 * case-insensitive). The one documented list (docs/sandbox.md); settings `sandbox.env.allow` names exceptions.
 */
export const CREDENTIAL_ENV_PATTERNS = [
	"*_API_KEY",
	"*_API_KEYS",
	"*_APIKEY",
	"*_TOKEN",
	"*_TOKENS",
	"*_SECRET*",
	"*_PASSWORD*",
	"*_PASSWD",
	"*_CREDENTIAL*",
	"*_PRIVATE_KEY*",
	"*_ACCESS_KEY*",
	"*_AUTH",
	"AWS_*",
	"AZURE_*",
	"GOOGLE_APPLICATION_CREDENTIALS",
	"GH_*",
	"GITHUB_*",
	"NPM_CONFIG__AUTH*",
	"SSH_AUTH_SOCK",
	"GPG_AGENT_INFO",
	"KUBECONFIG",
	"DOCKER_AUTH_CONFIG",
];

/** The tools whose calls the sandbox confines; any other tool of the child runs outside it. */
export const SANDBOXED_TOOLS = ["bash", "read", "write", "edit", "grep", "find", "ls"];
/** cadre's own tools a child may hold, which touch no file (not "outside the sandbox"; a delegated child gets its own). */
const OWN_TOOLS = new Set(["submit_result", ...DELEGATION_TOOLS]);

/** What the policy is computed from. */
export interface SandboxPolicyInput {
	config: Pick<EffectiveConfig, "sandbox" | "sandboxed" | "capabilityMode" | "tools">;
	/** Absolute directory the child works in. */
	cwd: string;
	/** Where its writes may go: its worktree's top level when isolated, else the project directory. */
	writeRoot: string;
	homeDir: string;
	agentDir: string;
	/** Relative `sandbox.denyRead` entries resolve against it (the project directory, else the cwd). */
	baseDir: string;
	settings: SandboxSettings;
	/** The child's private temp dir (explain shows a placeholder). */
	tempDir: string;
}

export interface SandboxPolicy {
	sandboxed: boolean;
	/** Absolute paths (and below) the child may write; empty for read-only. */
	write: string[];
	/** Absolute paths (and below) the child may not read. */
	denyRead: string[];
	/** Paths inside a denied one that stay readable (the child's own worktree inside the agent dir). */
	allowRead: string[];
	env: { deny: string[]; allow: string[] };
	/** Domains its commands may reach; empty: no network at all. */
	network: string[];
	tempDir: string | null;
	/** The child's tools that run outside the sandbox (extension tools). */
	outside: string[];
}

function expand(path: string, homeDir: string, baseDir: string): string {
	if (path === "~") return homeDir;
	if (path.startsWith("~/")) return join(homeDir, path.slice(2));
	return isAbsolute(path) ? resolvePath(path) : resolvePath(baseDir, path);
}

/** Whether `path` is `root` or below it (both absolute, normalised). */
export function isWithin(path: string, root: string): boolean {
	return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The policy of one child. Pure: the same input gives the same policy. */
export function sandboxPolicy(input: SandboxPolicyInput): SandboxPolicy {
	const { config, homeDir } = input;
	const readOnly = config.capabilityMode === "read-only";
	const write = readOnly ? [] : [input.writeRoot, input.tempDir];
	const denied = [...SECRET_PATHS.map((path) => join(homeDir, path)), input.agentDir, join(input.agentDir, "auth.json")];
	for (const path of input.settings.denyRead) denied.push(expand(path, homeDir, input.baseDir));
	const denyRead = [...new Set(denied)].filter((path) => !isWithin(input.writeRoot, path) || path !== input.writeRoot);
	const allowRead = denyRead.some((path) => isWithin(input.writeRoot, path)) ? [input.writeRoot] : [];
	const outside = outsideTools(config.tools);
	return {
		sandboxed: config.sandboxed === true,
		write,
		denyRead,
		allowRead,
		env: { deny: [...CREDENTIAL_ENV_PATTERNS], allow: [...input.settings.envAllow] },
		network: [...input.settings.allowNetwork],
		tempDir: readOnly ? null : input.tempDir,
		outside,
	};
}

/** The tools of `tools` that run outside the sandbox (extension tools). */
export function outsideTools(tools: readonly string[]): string[] {
	return tools.filter((tool) => !SANDBOXED_TOOLS.includes(tool) && !OWN_TOOLS.has(tool));
}

function matches(pattern: string, name: string): boolean {
	const parts = pattern.toUpperCase().split("*");
	const upper = name.toUpperCase();
	if (parts.length === 1) return upper === parts[0];
	if (!upper.startsWith(parts[0] ?? "") || !upper.endsWith(parts[parts.length - 1] ?? "")) return false;
	let at = (parts[0] ?? "").length;
	for (const part of parts.slice(1, -1)) {
		const found = upper.indexOf(part, at);
		if (found < 0) return false;
		at = found + part.length;
	}
	return at <= upper.length - (parts[parts.length - 1] ?? "").length;
}

/** Whether the policy removes variable `name` from the child's commands. */
export function isCredentialVariable(name: string, env: SandboxPolicy["env"]): boolean {
	if (env.allow.some((allowed) => allowed === name)) return false;
	return env.deny.some((pattern) => matches(pattern, name));
}

/** The environment the child's commands get: `env` without the credential variables. */
export function sandboxEnvironment(env: Readonly<Record<string, string | undefined>>, policy: SandboxPolicy): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(env)) if (value !== undefined && !isCredentialVariable(name, policy.env)) out[name] = value;
	return out;
}
