/**
 * The `sandbox` step (ADR 0150): the mode (role > definition > settings `sandbox.default` > auto,
 * the `ORDER` table), whether the child runs sandboxed on this platform, and what that means for
 * the spawn — `required` without a sandbox is refused, `auto` without one warns. A `sandbox: off`
 * of a project file counts only when pi trusts the project; otherwise it is an `untrusted-setting`
 * warning and the next layer decides (a setting that cannot be honoured never widens access).
 */
import { SANDBOX_MODES, normalizeSandbox, type SandboxMode } from "../core/values.ts";
import type { Entry, Sourced } from "../files/types.ts";
import type { ResolutionContext } from "./context.ts";
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

/**
 * The `sandbox` and `sandboxed` traces of one spawn. `remote`: the SSH workspaces the child may be
 * placed on (issue 25) — the OS sandbox is not applied there, so such a child is never counted as
 * sandboxed (a read-only child gets no bash), and `sandbox: required` refuses.
 */
export function resolveSandbox(ctx: ResolutionContext, remote: readonly string[] = []): { mode: TraceEntry; sandboxed: TraceEntry } {
	const setting = ctx.input.loaded.settings.sandbox?.default ?? { value: "auto", source: "default" };
	const mode = pickIn(ORDER.sandbox, {
		role: entrySlot(ctx, "role", ctx.role),
		definition: entrySlot(ctx, "definition", ctx.definition),
		default: { layer: "default", state: "named", value: normalizeSandbox(setting.value) ?? SANDBOX_MODES[0], source: setting.source },
	});
	const platform = ctx.input.parent.sandbox;
	const value = mode.value as SandboxMode;
	if (value !== "off" && platform && !platform.available) {
		const why = `the OS sandbox is not available here: ${platform.reason ?? "unsupported platform"}`;
		if (value === "required") ctx.refusals.add("sandbox-unavailable", `sandbox: required (${mode.source}), but ${why}; ${platform.hint}`);
		ctx.diagnostics.add("sandbox", {
			severity: value === "required" ? "error" : "warning",
			...positionOf(mode.source),
			code: "sandbox-unavailable",
			message:
				value === "required"
					? `sandbox: required, but ${why}; the spawn is refused`
					: `${why}; the child runs unsandboxed (a read-only child without bash)`,
			hint: platform.hint,
		});
	}
	if (value !== "off" && remote.length > 0) {
		const why = `the OS sandbox is not applied on SSH workspaces (${remote.join(", ")})`;
		if (value === "required") ctx.refusals.add("sandbox-unavailable", `sandbox: required (${mode.source}), but ${why}; use a local workspace for this type, or set sandbox: off in your user settings or a trusted project`);
		ctx.diagnostics.add("sandbox", {
			severity: value === "required" ? "error" : "warning",
			...positionOf(mode.source),
			code: "sandbox-unavailable",
			message: value === "required" ? `sandbox: required, but ${why}; the spawn is refused` : `${why}; the child's tools run unsandboxed there (a read-only child without bash)`,
			hint: "run the type locally (workspace: local) where it must be sandboxed",
		});
		return { mode, sandboxed: derived(false, mode.layer, mode.source) };
	}
	const sandboxed = value !== "off" && platform?.available === true;
	return { mode, sandboxed: derived(sandboxed, mode.layer, mode.source) };
}
