/**
 * Resolution (spec 02): a spawn request, the loaded definitions/roles/personas/settings, the
 * parent's facts and the model catalog become the effective runtime config, with a trace of every
 * field's winner and what it beat. Pure and synchronous; the only I/O goes through `input.reader`.
 * This module runs the steps, one module per concern: texts.ts (persona, role prompt), model.ts,
 * fields.ts, tool-selection.ts, cwd.ts, inputs.ts (inputs, outputs), output-schema.ts, resume.ts. Every precedence rule is the `ORDER` table of
 * order.ts.
 */
import { type CapabilityMode, type IsolationMode, nameKey } from "../core/values.ts";
import type { Entry, LoadResult } from "../files/types.ts";
import { createContext, type ResolutionContext } from "./context.ts";
import { resolveCwd } from "./cwd.ts";
import { resolveCapability, resolveCopyUncommitted, resolveIsolation, resolveRunFields } from "./fields.ts";
import { resolveInputs, resolveOutputs } from "./inputs.ts";
import { resolveModel, resolveThinking } from "./model.ts";
import { resolveResume } from "./resume.ts";
import { resolveSandbox } from "./sandbox.ts";
import { CONFIG_FIELDS } from "./order.ts";
import { resolveOutputSchema } from "./output-schema.ts";
import { derived, NOTHING, present } from "./slots.ts";
import { type PersonaOutcome, resolvePersona, resolveRolePrompt } from "./texts.ts";
import { resolveTools } from "./tool-selection.ts";
import type { EffectiveConfig, ResolveInput, ResolveResult, Trace, TraceEntry } from "./types.ts";

/** Types a spawn may use: enabled after the settings toggle. */
export function enabledTypes(loaded: LoadResult): string[] {
	return [...loaded.definitions.values()]
		.filter((entry) => isEnabled(entry, loaded))
		.map((entry) => entry.name)
		.sort((a, b) => a.localeCompare(b));
}

/** Whether a type may be spawned: the settings `toggle` overrides the definition's `enabled` both ways. */
export function isEnabled(entry: Entry<"definition">, loaded: LoadResult): boolean {
	const toggle = loaded.settings.toggle[nameKey(entry.name)];
	return toggle ? toggle.value : (entry.keys.enabled?.value ?? true);
}

function unknownType(input: ResolveInput, given: string): ResolveResult {
	const types = enabledTypes(input.loaded);
	return {
		type: given,
		config: null,
		trace: {},
		diagnostics: [...input.loaded.diagnostics],
		refused: { code: "unknown-type", message: `unknown type "${given}"; enabled types: ${types.length > 0 ? types.join(", ") : "(none)"}` },
		ignored: [],
	};
}

function checkEnabled(ctx: ResolutionContext): void {
	const { definition, key } = ctx;
	const { loaded } = ctx.input;
	if (isEnabled(definition, loaded)) return;
	const toggle = loaded.settings.toggle[key];
	const where = toggle ? `settings toggle (${toggle.source})` : `enabled: false (${definition.keys.enabled?.source ?? definition.path})`;
	ctx.refusals.add("disabled-type", `type "${definition.name}" is disabled by ${where}`);
}

/**
 * A restriction another tool's key wrote and cadre could not read (ADR 0072) refuses the spawn, for
 * the definition, the type's role and the persona the spawn uses.
 */
function checkRestrictions(ctx: ResolutionContext, persona: Entry<"persona"> | null): void {
	for (const entry of [ctx.definition, ctx.role, persona]) {
		for (const restriction of entry?.unread ?? []) {
			ctx.refusals.add(
				"restriction-unread",
				`${entry?.kind} "${entry?.name}": ${restriction.key} (${restriction.where}) restricts access in a way cadre cannot honour: ${restriction.why}; ${restriction.fix}`,
			);
		}
	}
}

/** Resolves one spawn request. Never throws on bad input; every problem is a diagnostic or a refusal. */
export function resolve(input: ResolveInput): ResolveResult {
	if (present(input.request.resume)) return resolveResume(input);
	const given = input.type ?? "general-purpose";
	const key = nameKey(given);
	const definition = input.loaded.definitions.get(key);
	if (!definition) return unknownType(input, given);

	const ctx = createContext(input, key, definition);
	checkEnabled(ctx);
	const persona = resolvePersona(ctx);
	checkRestrictions(ctx, persona.persona);
	const rolePrompt = resolveRolePrompt(ctx);
	const model = resolveModel(ctx, persona.persona);
	const thinking = resolveThinking(ctx, persona.persona, model.value as string | null);
	const capability = resolveCapability(ctx);
	const isolation = resolveIsolation(ctx, persona.persona);
	const copyUncommitted = resolveCopyUncommitted(ctx, isolation.trace.value);
	const runFields = resolveRunFields(ctx);
	const sandbox = resolveSandbox(ctx);
	const tools = resolveTools(ctx, { mode: capability.value as CapabilityMode | null, source: capability.source }, sandbox.sandboxed.value === true);
	const cwd = resolveCwd(ctx, { mode: isolation.trace.value as IsolationMode, layer: isolation.trace.layer, request: isolation.request });
	// A persona that cannot be loaded is refused already: its inputs are not checked.
	const usable = persona.error === null ? persona.persona : null;
	const inputs = resolveInputs(ctx, usable, cwd.absolute);
	const outputs = resolveOutputs(usable);
	const outputSchema = resolveOutputSchema(ctx);

	const trace = assembleTrace(ctx, persona, rolePrompt, {
		model,
		reasoningEffort: thinking,
		capabilityMode: capability,
		isolation: isolation.trace,
		copyUncommitted,
		sandbox: sandbox.mode,
		sandboxed: sandbox.sandboxed,
		tools,
		cwd: cwd.trace,
		inputs,
		outputs,
		outputSchema,
		...runFields,
	});
	return {
		type: definition.name,
		config: configOf(trace),
		trace,
		diagnostics: [...input.loaded.diagnostics, ...ctx.diagnostics.ordered()],
		refused: ctx.refusals.first(),
		ignored: [],
	};
}

/** The config is the trace's values: one source for both. */
function configOf(trace: Trace): EffectiveConfig {
	return Object.fromEntries(CONFIG_FIELDS.map((field) => [field, trace[field].value])) as unknown as EffectiveConfig;
}

type PickedFields = Pick<
	Trace,
	"model" | "reasoningEffort" | "capabilityMode" | "isolation" | "copyUncommitted" | "sandbox" | "sandboxed" | "tools" | "maxTurns" | "runInBackground" | "inheritContext" | "cwd" | "inputs" | "outputs" | "outputSchema"
>;

/** The full trace: the picked fields plus the derived role, persona and definition fields. */
function assembleTrace(ctx: ResolutionContext, persona: PersonaOutcome, role: { prompt: string | null; warning: string | null }, picked: PickedFields): Trace {
	const { definition } = ctx;
	const entry = persona.persona;
	const roleEntry = ctx.role;
	const personaName = entry ? entry.name : typeof persona.trace.value === "string" ? persona.trace.value : null;
	// Derived role/persona fields point at the text's key, else at the entry (inline: its settings line).
	const personaSource = entry ? (entry.origin ?? entry.path) : persona.trace.source;
	const roleSource = roleEntry ? (roleEntry.origin ?? roleEntry.path) : "default";
	const fromRole = (value: unknown, source: string): TraceEntry => (value === null || !roleEntry ? NOTHING : derived(value, "role", source));
	const fromPersona = (value: unknown, source: string): TraceEntry => (value === null ? NOTHING : derived(value, "persona", source));
	return {
		model: picked.model,
		reasoningEffort: picked.reasoningEffort,
		capabilityMode: picked.capabilityMode,
		persona: { ...persona.trace, value: personaName },
		personaInstructions: fromPersona(persona.instructions, entry ? (entry.body?.source ?? entry.keys.instructions_file?.source ?? personaSource) : personaSource),
		rolePrompt: fromRole(role.prompt, roleEntry?.body?.source ?? roleEntry?.keys.prompt_file?.source ?? roleSource),
		rolePromptWarning: fromRole(role.warning, roleEntry?.keys.prompt_file?.source ?? roleSource),
		roleName: roleEntry ? derived(roleEntry.name, "role", roleSource) : NOTHING,
		personaError: fromPersona(persona.error, entry ? (entry.keys.instructions_file?.source ?? personaSource) : personaSource),
		inputs: picked.inputs,
		outputs: picked.outputs,
		outputSchema: picked.outputSchema,
		isolation: picked.isolation,
		copyUncommitted: picked.copyUncommitted,
		sandbox: picked.sandbox,
		sandboxed: picked.sandboxed,
		tools: picked.tools,
		maxTurns: picked.maxTurns,
		runInBackground: picked.runInBackground,
		inheritContext: picked.inheritContext,
		cwd: picked.cwd,
		standingInstructions: derived(definition.body?.value ?? null, "definition", definition.body?.source ?? definition.path),
		definition: derived({ name: definition.name, source: definition.path }, "definition", definition.path),
	};
}
