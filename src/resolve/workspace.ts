/**
 * The `workspace` step (issue 25, ADR 0180): where the child's tools run — request > role >
 * definition > `local` (the `ORDER` table). The winner is a list of names the spawn may be placed on
 * (least loaded first at spawn); every name must be `local` or a settings `workspaces` entry, else
 * the spawn is refused `workspace-unknown` with the names settings define.
 */
import { nameKey } from "../core/values.ts";
import type { Entry, Sourced } from "../files/types.ts";
import { LOCAL_WORKSPACE } from "../files/workspace-settings.ts";
import type { ResolutionContext } from "./context.ts";
import { ORDER } from "./order.ts";
import { loadedSlot, NOT_NAMED, pickIn, present, type Slot } from "./slots.ts";
import type { TraceEntry } from "./types.ts";

function requestSlot(ctx: ResolutionContext): Slot {
	const raw = ctx.request.workspace;
	if (!present(raw)) return NOT_NAMED("request");
	const list = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : null;
	if (list === null || list.length === 0 || !list.every((name) => typeof name === "string" && name.trim() !== "")) {
		return ctx.badRequest("workspace", "workspace", raw, "a workspace name or a list of names (settings workspaces, or local)");
	}
	return { layer: "request", state: "named", value: [...new Set(list.map((name) => nameKey((name as string).trim())))], source: "request" };
}

function entrySlot(entry: Entry<"definition" | "role"> | null, layer: "role" | "definition"): Slot {
	const keys = entry?.keys as { workspace?: Sourced<string[]> } | undefined;
	const invalid = (entry?.invalid as { workspace?: { raw: unknown; source: string } } | undefined)?.workspace;
	return loadedSlot(layer, keys?.workspace, invalid);
}

/** The `workspace` trace of one spawn; unknown names refuse it. */
export function resolveWorkspace(ctx: ResolutionContext): TraceEntry {
	const trace = pickIn(ORDER.workspace, {
		request: requestSlot(ctx),
		role: entrySlot(ctx.role, "role"),
		definition: entrySlot(ctx.definition, "definition"),
		default: { layer: "default", state: "named", value: [LOCAL_WORKSPACE], source: "default" },
	});
	const defined = ctx.input.loaded.settings.workspaces ?? {};
	const names = (trace.value as string[] | null) ?? [LOCAL_WORKSPACE];
	const unknown = names.filter((name) => name !== LOCAL_WORKSPACE && !Object.hasOwn(defined, name));
	if (unknown.length > 0) {
		const known = [LOCAL_WORKSPACE, ...Object.keys(defined)].join(", ");
		ctx.refusals.add(
			"workspace-unknown",
			`workspace ${unknown.join(", ")} (${trace.source}) is not in settings workspaces; defined: ${known} — add it to your user settings (~/.pi/agent/subagents.json) or a trusted project's`,
		);
	}
	return { ...trace, value: names };
}

/** The remote workspaces among a resolved `workspace` value (none: the child runs here). */
export function remoteNames(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((name): name is string => typeof name === "string" && name !== LOCAL_WORKSPACE) : [];
}
