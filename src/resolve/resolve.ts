/**
 * Resolution (spec 02): a spawn request, the loaded definitions/roles/personas/settings, the
 * parent's facts and the model catalog become the effective runtime config, with a trace of every
 * field's winner and what it beat. Pure and synchronous; the only I/O goes through `input.reader`.
 * This module runs the steps, one module per concern: texts.ts (persona, role prompt), model.ts,
 * fields.ts, tool-selection.ts, cwd.ts, inputs.ts (inputs, outputs), output-schema.ts, resume.ts. Every precedence rule is the `ORDER` table of
 * order.ts.
 */
import { type CapabilityMode, type IsolationMode, nameKey } from "../core/values.ts";
import { editDistance } from "../files/suggest.ts";
import type { Entry } from "../files/types.ts";
import { resolveBudget } from "./budget.ts";
import { capCapability, capIsolation, capTools, checkNesting, depthOf, resolveDelegation } from "./delegation.ts";
import { enabledTypes, isEnabled } from "./enabled.ts";
import { fileInvalidMessage, spawnFaults } from "../files/file-faults.ts";
import { createContext, type ResolutionContext } from "./context.ts";
import { resolveCwd } from "./cwd.ts";
import { resolveCapability, resolveCopyUncommitted, resolveIsolation, resolveRunFields, resolveVerify } from "./fields.ts";
import { resolveInputs, resolveOutputs } from "./inputs.ts";
import { resolveModel, resolveThinking } from "./model.ts";
import { resolveResume } from "./resume.ts";
import { resolveSandbox } from "./sandbox.ts";
import { resolveWorkspace } from "./workspace.ts";
import { CONFIG_FIELDS } from "./order.ts";
import { resolveOutputSchema } from "./output-schema.ts";
import { derived, NOTHING, present } from "./slots.ts";
import { type PersonaOutcome, resolvePersona, resolveRolePrompt } from "./texts.ts";
import { resolveTools } from "./tool-selection.ts";
import type { EffectiveConfig, Refusal, ResolveInput, ResolveResult, Trace, TraceEntry } from "./types.ts";

export { enabledTypes, isEnabled } from "./enabled.ts";

/** ` — did you mean x?` for the enabled type nearest a misspelt one (case ignored), else "". */
function didYouMean(given: string, types: readonly string[]): string {
	const text = given.toLowerCase();
	let best: { type: string; distance: number } | null = null;
	for (const type of types) {
		const distance = editDistance(text, type.toLowerCase());
		if (best === null || distance < best.distance) best = { type, distance };
	}
	return best !== null && best.distance <= Math.max(2, Math.floor(text.length / 3)) ? ` — did you mean ${best.type}?` : "";
}

function unknownType(input: ResolveInput, given: string): ResolveResult {
	const types = enabledTypes(input.loaded);
	// A definition file of that name that has an error (skipped whole) is why the type is missing.
	const faults = spawnFaults(input.loaded.faults, { type: given, persona: null });
	const refused: Refusal =
		faults.length > 0
			? { code: "file-invalid", message: fileInvalidMessage(faults) }
			: { code: "unknown-type", message: `unknown type "${given}"${didYouMean(given, types)}; enabled types: ${types.length > 0 ? types.join(", ") : "(none)"}` };
	return { type: given, config: null, trace: {}, diagnostics: [...input.loaded.diagnostics], refused, ignored: [] };
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

/**
 * A definition, role, persona or settings file with an error never runs (ADR 0100): the spawn is
 * refused when a file it would read has one — `spawnFaults` decides which.
 */
function checkFiles(ctx: ResolutionContext, persona: PersonaOutcome): void {
	const name = persona.persona?.name ?? (typeof persona.trace.value === "string" ? persona.trace.value : null);
	const faults = spawnFaults(ctx.input.loaded.faults, { type: ctx.definition.name, persona: name });
	if (faults.length > 0) ctx.refusals.add("file-invalid", fileInvalidMessage(faults));
}

/** Resolves one spawn request. Never throws on bad input; every problem is a diagnostic or a refusal. */
export function resolve(input: ResolveInput): ResolveResult {
	if (present(input.request.resume)) return resolveResume(input);
	const given = input.type ?? "general-purpose";
	const key = nameKey(given);
	const definition = input.loaded.definitions.get(key);
	if (!definition) return unknownType(input, given);

	const ctx = createContext(input, key, definition);
	checkNesting(ctx);
	checkEnabled(ctx);
	const persona = resolvePersona(ctx);
	checkRestrictions(ctx, persona.persona);
	checkFiles(ctx, persona);
	const rolePrompt = resolveRolePrompt(ctx);
	const model = resolveModel(ctx, persona.persona);
	const thinking = resolveThinking(ctx, persona.persona, model.value as string | null);
	// A nested spawn never gets more than its spawner: capability, tools and isolation are capped (issue 21).
	const spawner = input.spawner;
	const capability = capCapability(resolveCapability(ctx), spawner);
	const resolvedIsolation = resolveIsolation(ctx, persona.persona);
	const isolation = { ...resolvedIsolation, trace: capIsolation(resolvedIsolation.trace, spawner) };
	const copyUncommitted = resolveCopyUncommitted(ctx, isolation.trace.value);
	const runFields = resolveRunFields(ctx);
	const asked = capability.capped ? { asked: capability.capped.asked as CapabilityMode | null } : {};
	const workspace = resolveWorkspace(ctx);
	const sandbox = resolveSandbox(ctx, workspace.value as string[]);
	const selected = resolveTools(ctx, { mode: capability.value as CapabilityMode | null, source: capability.source, ...asked }, sandbox.sandboxed.value === true);
	const delegation = resolveDelegation(ctx, selected.namesSubagent);
	const tools = capTools(selected.trace, spawner, (delegation.value as { allowed: boolean }).allowed, selected.asked);
	const isolationLayer = isolation.trace.capped ? "parent" : isolation.trace.layer;
	const cwd = resolveCwd(ctx, { mode: isolation.trace.value as IsolationMode, layer: isolationLayer, request: isolation.request });
	const budget = resolveBudget(ctx);
	// A persona that cannot be loaded is refused already: its inputs are not checked.
	const usable = persona.error === null ? persona.persona : null;
	const inputs = resolveInputs(ctx, usable, cwd.absolute);
	const outputs = resolveOutputs(usable);
	const outputSchema = resolveOutputSchema(ctx);
	const verify = resolveVerify(ctx, usable);

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
		depth: spawner ? derived(depthOf(spawner), "parent", `parent ${spawner.type}`) : derived(1, "default", "default"),
		delegation,
		budget,
		verify,
		workspace,
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
	| "model"
	| "reasoningEffort"
	| "capabilityMode"
	| "isolation"
	| "copyUncommitted"
	| "sandbox"
	| "sandboxed"
	| "tools"
	| "maxTurns"
	| "runInBackground"
	| "inheritContext"
	| "cwd"
	| "inputs"
	| "outputs"
	| "outputSchema"
	| "depth"
	| "delegation"
	| "budget"
	| "verify"
	| "workspace"
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
		verify: picked.verify,
		cwd: picked.cwd,
		standingInstructions: derived(definition.body?.value ?? null, "definition", definition.body?.source ?? definition.path),
		definition: derived({ name: definition.name, source: definition.path }, "definition", definition.path),
		depth: picked.depth,
		delegation: picked.delegation,
		budget: picked.budget,
		workspace: picked.workspace,
	};
}
