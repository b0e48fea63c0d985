/**
 * The settings-like fields (spec 02 "Per field"): capability (request > role > definition, never a
 * persona), isolation (request > the definition's `worktree` floor > role > persona > definition >
 * default `none`), and max_turns, run_in_background and inherit_context (request > definition >
 * settings default > default).
 */
import { CAPABILITY_MODES, ISOLATION_MODES, normalizeCapability, normalizeIsolation } from "../core/values.ts";
import type { Entry, Sourced } from "../files/types.ts";
import type { ResolutionContext } from "./context.ts";
import { ORDER } from "./order.ts";
import { loadedSlot, NOT_NAMED, pickIn, positionOf, present, show, type Slot } from "./slots.ts";
import type { Layer, TraceEntry } from "./types.ts";

/**
 * Capability. A role's or definition's `capability` that cannot be read refuses the spawn when it
 * would have won: falling through to a lower layer could give the child more access than the file
 * asked for (ADR 0064).
 */
export function resolveCapability(ctx: ResolutionContext): TraceEntry {
	const { role, definition } = ctx;
	const slots: Partial<Record<Layer, Slot>> = {
		request: ctx.enumRequest("capabilityMode", "capability", normalizeCapability, CAPABILITY_MODES, false),
		role: loadedSlot("role", role?.keys.capability, role?.invalid.capability),
		definition: loadedSlot("definition", definition.keys.capability, definition.invalid.capability),
	};
	const first = ORDER.capabilityMode.map((layer) => slots[layer]).find((slot) => slot !== undefined && slot.state !== "not-named");
	if (first?.state === "invalid" && first.layer !== "request") {
		ctx.refusals.add(
			"restriction-unread",
			`capability ${show(first.value)} of the ${first.layer} (${first.source}) is not a capability mode, so cadre cannot honour the restriction it asks for; fix it (${CAPABILITY_MODES.join(", ")}) rather than run the child with more access`,
		);
	}
	return pickIn(ORDER.capabilityMode, slots);
}

/** Isolation's trace and the request's own slot (the cwd step needs to know what the request said). */
export function resolveIsolation(ctx: ResolutionContext, persona: Entry<"persona"> | null): { trace: TraceEntry; request: Slot } {
	const { role, definition } = ctx;
	const request = ctx.enumRequest("isolation", "isolation", normalizeIsolation, ISOLATION_MODES, false);
	const floor = definition.keys.isolation?.value === "worktree" ? definition.keys.isolation : undefined;
	const trace = pickIn(ORDER.isolation, {
		request,
		role: loadedSlot("role", role?.keys.isolation, role?.invalid.isolation),
		persona: loadedSlot("persona", persona?.keys.isolation, persona?.invalid.isolation),
		// The definition's key counts once: at the floor when it says worktree, else at its plain place.
		"definition-floor": floor ? loadedSlot("definition-floor", floor, undefined) : NOT_NAMED("definition-floor"),
		definition: floor ? NOT_NAMED("definition") : loadedSlot("definition", definition.keys.isolation, definition.invalid.isolation),
		default: { layer: "default", state: "named", value: "none", source: "default" },
	});
	return { trace, request };
}

/**
 * `copy_uncommitted`: request > settings `worktree.copyUncommitted` > false. Without worktree
 * isolation it has nothing to copy into, and a request naming it is told so.
 */
export function resolveCopyUncommitted(ctx: ResolutionContext, isolation: unknown): TraceEntry {
	const request = ctx.booleanRequest("copyUncommitted", "copy_uncommitted");
	if (request.state === "named" && request.value === true && isolation !== "worktree") {
		ctx.diagnostics.add("copyUncommitted", {
			severity: "warning",
			file: null,
			line: null,
			column: null,
			code: "request-ignored",
			message: "request copy_uncommitted true has no effect: the child runs without worktree isolation, in the parent's files",
		});
	}
	return pickIn(ORDER.copyUncommitted, {
		request,
		default: settingsDefault(ctx.input.loaded.settings.worktree.copyUncommitted ?? null, false),
	});
}

function settingsDefault<T>(value: Sourced<T> | null, fallback: T): Slot {
	return value ? { layer: "default", state: "named", value: value.value, source: value.source } : { layer: "default", state: "named", value: fallback, source: "default" };
}

/** max_turns, run_in_background and inherit_context. */
export function resolveRunFields(ctx: ResolutionContext): { maxTurns: TraceEntry; runInBackground: TraceEntry; inheritContext: TraceEntry } {
	const { request, definition } = ctx;
	const settings = ctx.input.loaded.settings;
	let maxTurnsRequest: Slot = NOT_NAMED("request");
	if (present(request.max_turns)) {
		const raw = request.max_turns;
		maxTurnsRequest =
			typeof raw === "number" && Number.isInteger(raw) && raw >= 2
				? { layer: "request", state: "named", value: raw, source: "request" }
				: ctx.badRequest("maxTurns", "max_turns", raw, "an integer ≥ 2");
	}
	return {
		maxTurns: pickIn(ORDER.maxTurns, {
			request: maxTurnsRequest,
			definition: loadedSlot("definition", definition.keys.max_turns, definition.invalid.max_turns),
			default: settingsDefault(settings.defaultMaxTurns, null),
		}),
		runInBackground: pickIn(ORDER.runInBackground, {
			request: ctx.booleanRequest("runInBackground", "run_in_background"),
			definition: loadedSlot("definition", definition.keys.run_in_background, definition.invalid.run_in_background),
			default: settingsDefault(settings.defaultBackground, false),
		}),
		inheritContext: pickIn(ORDER.inheritContext, {
			request: ctx.booleanRequest("inheritContext", "inherit_context"),
			definition: loadedSlot("definition", definition.keys.inherit_context, definition.invalid.inherit_context),
			default: { layer: "default", state: "named", value: false, source: "default" },
		}),
	};
}

/** `verify` (issue 23): role > persona > definition > none. The request cannot name one. */
export function resolveVerify(ctx: ResolutionContext, persona: Entry<"persona"> | null): TraceEntry {
	const { role, definition } = ctx;
	const slots = {
		role: loadedSlot("role", role?.keys.verify, role?.invalid.verify),
		persona: loadedSlot("persona", persona?.keys.verify, persona?.invalid.verify),
		definition: loadedSlot("definition", definition.keys.verify, definition.invalid.verify),
	};
	for (const slot of Object.values(slots)) {
		if (slot.state !== "invalid" || (slot.value as { untrusted?: boolean } | null)?.untrusted !== true) continue;
		ctx.diagnostics.add("verify", {
			severity: "warning",
			...positionOf(slot.source),
			code: "verify-untrusted",
			message: `the ${slot.layer}'s verify is not run: it comes from a project pi does not trust, and verify runs a command`,
			hint: "trust the project in pi (cadre: --trust-project), or put the verify in a user-scope file",
		});
	}
	return pickIn(ORDER.verify, { ...slots, default: { layer: "default", state: "named", value: null, source: "default" } });
}
