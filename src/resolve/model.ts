/**
 * Model and thinking (spec 02 "Model", "Thinking"): request > role > persona > pin > definition >
 * parent, each model looked up in the catalog (an unusable one below the request falls through with
 * a warning; in the request it refuses the spawn), and the thinking level clamped to the model.
 */
import { isInherit, normalizeThinking, THINKING_LEVELS, type ThinkingLevel } from "../core/values.ts";
import type { Entry, Rejected, Sourced } from "../files/types.ts";
import type { ResolutionContext } from "./context.ts";
import { ORDER } from "./order.ts";
import { loadedSlot, NOT_NAMED, pickIn, positionOf, present, show, type Slot } from "./slots.ts";
import type { Candidate, Layer, TraceEntry } from "./types.ts";

function modelSlot(ctx: ResolutionContext, layer: Layer, raw: unknown, source: string | null): Slot {
	if (typeof raw !== "string" || raw.trim() === "" || isInherit(raw)) return NOT_NAMED(layer);
	const found = ctx.input.models.lookup(raw.trim());
	if (found.ok) return { layer, state: "named", value: found.id, source };
	const closest = found.closest.length > 0 ? `; closest available: ${found.closest.join(", ")}` : "";
	const why = found.message.replace(/\.$/, "");
	if (layer === "request") {
		ctx.refusals.add("model-unresolvable", `request model ${show(raw)} cannot be used: ${why}${closest}`);
		ctx.diagnostics.add("model", {
			severity: "error",
			file: null,
			line: null,
			column: null,
			code: "model-unresolvable",
			message: `request model ${show(raw)}: ${why}${closest}`,
			hint: found.reason === "no-credentials" ? "log in to the provider, or name an available model" : "name provider/id of an available model, or omit model to let the lower layers choose",
		});
	} else {
		ctx.diagnostics.add("model", {
			severity: "warning",
			...positionOf(source),
			code: "model-unresolvable",
			message: `model ${show(raw)} (${layer}, reason: ${found.reason}) cannot be used: ${why}${closest}; the next layer fills`,
			hint: found.reason === "no-credentials" ? "log in to the provider or pick an available model" : "use provider/id of an available model",
		});
	}
	return { layer, state: "unresolvable", value: raw, source };
}

/** The model: the first layer naming a usable one; refused when none does. */
export function resolveModel(ctx: ResolutionContext, persona: Entry<"persona"> | null): TraceEntry {
	const { request, role, definition, key } = ctx;
	const { loaded, parent } = ctx.input;
	const loadedModel = (layer: Layer, named: Sourced<string> | undefined, rejected: Rejected | undefined): Slot =>
		named ? modelSlot(ctx, layer, named.value, named.source) : loadedSlot(layer, undefined, rejected);
	let requestModel: Slot = NOT_NAMED("request");
	if (present(request.model)) {
		if (typeof request.model !== "string" || request.model.trim() === "") requestModel = ctx.badRequest("model", "model", request.model, "provider/id or a name pi's --model accepts, inherit");
		else requestModel = modelSlot(ctx, "request", request.model, "request");
	}
	const trace = pickIn(ORDER.model, {
		request: requestModel,
		role: loadedModel("role", role?.keys.model, role?.invalid.model),
		persona: loadedModel("persona", persona?.keys.model, persona?.invalid.model),
		pin: loadedModel("pin", loaded.settings.models[key], loaded.settings.invalidPins.models[key]),
		definition: loadedModel("definition", definition.keys.model, definition.invalid.model),
		parent: parent.model === null ? NOT_NAMED("parent") : modelSlot(ctx, "parent", parent.model, "parent"),
	});
	const winner = typeof trace.value === "string" ? ctx.input.models.lookup(trace.value) : null;
	if (winner?.ok && winner.unverified) {
		trace.unverified = true;
		ctx.diagnostics.add("model", {
			severity: "warning",
			...positionOf(trace.source),
			code: "model-unverified",
			message: `model ${show(trace.value)} (${trace.layer}) is not verified: pi has no credential for it here, so a spawn would be refused until there is one`,
			hint: "log in with pi (/login) or set the provider's API key",
		});
	}
	if (trace.value === null) {
		const layers = ORDER.model.map((layer) => layerReport(ctx, layer, trace.candidates.find((candidate) => candidate.layer === layer)));
		ctx.refusals.add("model-unresolvable", `no layer names a usable model — ${layers.join("; ")}`);
	}
	return trace;
}

/** What one layer said about the model and why it could not be used, for the refusal. */
function layerReport(ctx: ResolutionContext, layer: Layer, candidate: Candidate | undefined): string {
	const where = candidate?.source && !["request", "parent"].includes(candidate.source) ? ` (${candidate.source})` : "";
	if (!candidate || candidate.outcome === "not-named") return layer === "parent" ? "parent: has no model" : `${layer}: names none`;
	if (candidate.outcome === "invalid") return `${layer}: ${show(candidate.value)} is not a model name${where}`;
	// Lookups are memoized by the catalog: this asks nothing new.
	const found = ctx.input.models.lookup(String(candidate.value).trim());
	const why = found.ok ? "usable" : `${found.reason}: ${found.message.replace(/\.$/, "")}`;
	return `${layer}: ${show(candidate.value)}${where} — ${why}`;
}

/** Thinking: same order (the parent always names a level), `applied` clamped to `model`. */
export function resolveThinking(ctx: ResolutionContext, persona: Entry<"persona"> | null, model: string | null): TraceEntry {
	const { role, definition, key } = ctx;
	const { loaded, parent, models } = ctx.input;
	const trace = pickIn(ORDER.reasoningEffort, {
		request: ctx.enumRequest("reasoningEffort", "thinking", normalizeThinking, THINKING_LEVELS, true),
		role: loadedSlot("role", role?.keys.thinking, role?.invalid.thinking),
		persona: loadedSlot("persona", persona?.keys.thinking, persona?.invalid.thinking),
		pin: loadedSlot("pin", loaded.settings.thinking[key], loaded.settings.invalidPins.thinking[key]),
		definition: loadedSlot("definition", definition.keys.thinking, definition.invalid.thinking),
		parent: { layer: "parent", state: "named", value: parent.thinking, source: "parent" },
	});
	const level = trace.value as ThinkingLevel | null;
	trace.applied = level !== null && model !== null ? models.clampThinking(model, level) : level;
	if (trace.applied !== level && model !== null) {
		// A level from a file or settings is reported at its key (file:line:col).
		const named: Partial<Record<Layer, Sourced<ThinkingLevel> | undefined>> = {
			role: role?.keys.thinking,
			persona: persona?.keys.thinking,
			pin: loaded.settings.thinking[key],
			definition: definition.keys.thinking,
		};
		const where = positionOf(trace.source);
		ctx.diagnostics.add("reasoningEffort", {
			severity: "warning",
			...where,
			column: where.line === null ? null : (named[trace.layer]?.column ?? null),
			code: "thinking-clamped",
			message: `thinking "${level}" is not supported by ${model}; the child runs with "${trace.applied}"`,
		});
	}
	return trace;
}
