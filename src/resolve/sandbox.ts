/**
 * The `sandbox` step (ADR 0150): the mode (role > definition > settings `sandbox.default` > auto,
 * the `ORDER` table), whether the child runs sandboxed on this platform and on the SSH workspaces
 * it may be placed on (their probed facts, ADR 0191), and what that means for the spawn —
 * `required` without a sandbox is refused, `auto` without one warns. A `sandbox: off`
 * of a project file counts only when pi trusts the project; otherwise it is an `untrusted-setting`
 * warning and the next layer decides (a setting that cannot be honoured never widens access).
 */
import { SANDBOX_MODES, normalizeSandbox, type SandboxMode } from "../core/values.ts";
import type { Entry, Sourced } from "../files/types.ts";
import type { ResolutionContext } from "./context.ts";
import { LOCAL_WORKSPACE } from "../files/workspace-settings.ts";
import { ORDER } from "./order.ts";
import { derived, loadedSlot, pickIn, positionOf, type Slot } from "./slots.ts";
import type { Layer, TraceEntry } from "./types.ts";

/** What the child is told about the platform when nothing can sandbox it (Debian/Ubuntu; macOS has sandbox-exec). */
export const SANDBOX_INSTALL_HINT = "install bubblewrap, socat and ripgrep (Debian/Ubuntu: apt-get install -y bubblewrap socat ripgrep), or set sandbox: off in your user settings or a trusted project";

function fromProject(entry: Entry<"definition" | "role">, key: Sourced<SandboxMode>): boolean {
	const layer = entry.layers.find((candidate) => (candidate.keys as { sandbox?: Sourced<SandboxMode> }).sandbox === key);
	const scope = layer?.scope ?? entry.scope;
	return scope === "project" || scope === "project-inline";
}

function entrySlot(ctx: ResolutionContext, layer: Layer, entry: Entry<"definition" | "role"> | null): Slot {
	const keys = entry?.keys as { sandbox?: Sourced<SandboxMode> } | undefined;
	const invalid = (entry?.invalid as { sandbox?: { raw: unknown; source: string } } | undefined)?.sandbox;
	const key = keys?.sandbox;
	if (entry && key?.value === "off" && fromProject(entry, key) && ctx.input.parent.projectTrusted !== true) {
		ctx.diagnostics.add("sandbox", {
			severity: "warning",
			...positionOf(key.source),
			code: "untrusted-setting",
			message: `sandbox: off of ${entry.kind} "${entry.name}" is ignored: the project is not trusted`,
			hint: "trust the project in pi, or set sandbox: off in a user file",
		});
		return { layer, state: "invalid", value: "off", source: key.source };
	}
	return loadedSlot(layer, key, invalid);
}

/** The hint of a workspace whose host cannot sandbox (issue 25). */
export function remoteSandboxHint(name: string, host: string): string {
	return `install bubblewrap on ${host} (Debian/Ubuntu: apt-get install -y bubblewrap), run the type locally (workspace: local), or set sandbox: off in your user settings or a trusted project (workspace ${name})`;
}

/** The local platform's check: refuses `required`, warns `auto`; whether it can sandbox. */
function checkPlatform(ctx: ResolutionContext, mode: TraceEntry): boolean {
	const platform = ctx.input.parent.sandbox;
	const value = mode.value as SandboxMode;
	if (value === "off" || !platform || platform.available) return platform?.available === true;
	const why = `the OS sandbox is not available here: ${platform.reason ?? "unsupported platform"}`;
	if (value === "required") ctx.refusals.add("sandbox-unavailable", `sandbox: required (${mode.source}), but ${why}; ${platform.hint}`);
	ctx.diagnostics.add("sandbox", {
		severity: value === "required" ? "error" : "warning",
		...positionOf(mode.source),
		code: "sandbox-unavailable",
		message: value === "required" ? `sandbox: required, but ${why}; the spawn is refused` : `${why}; the child runs unsandboxed (a read-only child without bash)`,
		hint: platform.hint,
	});
	return false;
}

/**
 * The SSH workspaces' checks (issue 25, ADR 0191): a workspace whose probe found no working
 * bubblewrap refuses `required` and warns `auto` (the child runs unsandboxed there); a workspace
 * not probed yet counts as able (the runtime probes first and refuses when it cannot). Network
 * asked for in settings is never opened on a remote (no filtering proxy there): `required`
 * refuses, `auto` warns and the child runs with none. Whether they can all sandbox.
 */
function checkRemote(ctx: ResolutionContext, mode: TraceEntry, remote: readonly string[]): boolean {
	const value = mode.value as SandboxMode;
	if (value === "off" || remote.length === 0) return true;
	const facts = ctx.input.parent.remoteSandbox ?? {};
	const workspaces = ctx.input.loaded.settings.workspaces ?? {};
	const add = (message: string, refusal: string, hint: string) => {
		if (value === "required") ctx.refusals.add("sandbox-unavailable", `sandbox: required (${mode.source}), but ${refusal}`);
		ctx.diagnostics.add("sandbox", { severity: value === "required" ? "error" : "warning", ...positionOf(mode.source), code: "sandbox-unavailable", message, hint });
	};
	const unable = remote.filter((name) => facts[name] && facts[name].available !== true);
	for (const name of unable) {
		const fact = facts[name] as NonNullable<(typeof facts)[string]>;
		const why = `SSH workspace ${name} cannot sandbox: ${fact.reason ?? "no working bubblewrap"}`;
		const hint = fact.hint || remoteSandboxHint(name, workspaces[name]?.host ?? name);
		add(value === "required" ? `sandbox: required, but ${why}; the spawn is refused` : `${why}; the child's tools run unsandboxed there (a read-only child without bash)`, `${why}; ${hint}`, hint);
	}
	const network = ctx.input.loaded.settings.sandbox.allowNetwork;
	if (network.length > 0) {
		const why = `settings sandbox.allowNetwork (${network.join(", ")}) cannot be honoured on SSH workspaces (${remote.join(", ")}): the remote sandbox has no network filter`;
		const hint = "run the type locally (workspace: local) where it needs the network, or drop sandbox.allowNetwork";
		add(value === "required" ? `sandbox: required, but ${why}; the spawn is refused` : `${why}; the child's commands there get no network`, `${why}; ${hint}`, hint);
	}
	return unable.length === 0;
}

/**
 * The `sandbox` and `sandboxed` traces of one spawn. `workspaces`: where the child may be placed
 * (issue 25) — the local platform is checked when `local` is among them, each SSH workspace by its
 * probed facts; the child counts as sandboxed when every place can sandbox it.
 */
export function resolveSandbox(ctx: ResolutionContext, workspaces: readonly string[] = [LOCAL_WORKSPACE]): { mode: TraceEntry; sandboxed: TraceEntry } {
	const setting = ctx.input.loaded.settings.sandbox?.default ?? { value: "auto", source: "default" };
	const mode = pickIn(ORDER.sandbox, {
		role: entrySlot(ctx, "role", ctx.role),
		definition: entrySlot(ctx, "definition", ctx.definition),
		default: { layer: "default", state: "named", value: normalizeSandbox(setting.value) ?? SANDBOX_MODES[0], source: setting.source },
	});
	const remote = workspaces.filter((name) => name !== LOCAL_WORKSPACE);
	const here = remote.length === 0 || workspaces.includes(LOCAL_WORKSPACE);
	// A host that checked nothing (pure tests, hosts that never run commands): nothing is sandboxed, nothing said.
	const checked = ctx.input.parent.sandbox !== undefined;
	const local = here ? checkPlatform(ctx, mode) : true;
	const remoteOk = checked ? checkRemote(ctx, mode, remote) : false;
	const sandboxed = (mode.value as SandboxMode) !== "off" && checked && local && remoteOk;
	return { mode, sandboxed: derived(sandboxed, mode.layer, mode.source) };
}
