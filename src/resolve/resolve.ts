/**
 * Resolution (spec 02): a spawn request, the loaded definitions/roles/personas/settings, the
 * parent's facts and the model catalog become the effective runtime config, with a trace of every
 * field's winner and what it beat. Pure and synchronous; the only I/O goes through `input.reader`.
 * Every precedence rule of cadre lives in this file's `ORDER` table and the functions below it.
 */
import { isAbsolute, relative, resolve as resolvePath } from "node:path";
import type { Diagnostic } from "../core/diagnostics.ts";
import {
	CAPABILITY_MODES,
	type CapabilityMode,
	ISOLATION_MODES,
	type IsolationMode,
	isInherit,
	nameKey,
	normalizeCapability,
	normalizeIsolation,
	normalizeThinking,
	THINKING_LEVELS,
	type ThinkingLevel,
} from "../core/values.ts";
import { displayPath } from "../files/discovery.ts";
import type { Entry, FileRef, LoadResult, Rejected, Sourced } from "../files/types.ts";
import { filterByCapability, selectTools, suggestToolNames } from "./tools.ts";
import type {
	Candidate,
	EffectiveConfig,
	IgnoredRequestValue,
	Layer,
	Refusal,
	RefusalCode,
	ResolveInput,
	ResolveResult,
	SpawnRequest,
	Trace,
	TraceEntry,
} from "./types.ts";

/** The per-field precedence, highest first (spec 02 "Per field"). The one place it is written. */
export const ORDER = {
	model: ["request", "role", "persona", "pin", "definition", "parent"],
	reasoningEffort: ["request", "role", "persona", "pin", "definition", "parent"],
	capabilityMode: ["request", "role", "definition"],
	isolation: ["request", "role", "persona", "definition", "default"],
	persona: ["request", "definition"],
	maxTurns: ["request", "definition", "default"],
	runInBackground: ["request", "definition", "default"],
	inheritContext: ["request", "definition", "default"],
} as const satisfies Record<string, readonly Layer[]>;

/** Config fields in output order; the resolution's own diagnostics follow this order. */
export const CONFIG_FIELDS = [
	"model",
	"reasoningEffort",
	"capabilityMode",
	"persona",
	"personaInstructions",
	"rolePrompt",
	"rolePromptWarning",
	"roleName",
	"personaError",
	"isolation",
	"tools",
	"maxTurns",
	"runInBackground",
	"inheritContext",
	"cwd",
	"standingInstructions",
	"definition",
] as const satisfies readonly (keyof EffectiveConfig)[];

type Field = (typeof CONFIG_FIELDS)[number];

/** Request keys a resume ignores (everything but prompt, description, run_in_background, type, persona). */
const RESUME_IGNORED_KEYS = ["model", "thinking", "capability", "isolation", "cwd", "max_turns", "inherit_context"] as const;

/** One layer's say on one field, before the winner is chosen. */
interface Slot {
	layer: Layer;
	state: "named" | "not-named" | "invalid" | "unresolvable";
	value: unknown;
	source: string | null;
}

const NOT_NAMED = (layer: Layer): Slot => ({ layer, state: "not-named", value: null, source: null });

/** The slot of a key loaded from a file or settings: valid → named, rejected → invalid. */
function loadedSlot<T>(layer: Layer, named: Sourced<T> | undefined, rejected: Rejected | undefined): Slot {
	if (named) return { layer, state: "named", value: named.value, source: named.source };
	if (rejected) return { layer, state: "invalid", value: rejected.raw, source: rejected.source };
	return NOT_NAMED(layer);
}

/** Chooses the first named slot and reports the others as candidates (spec 02 "The trace"). */
function pick(slots: Slot[]): TraceEntry {
	const winner = slots.findIndex((slot) => slot.state === "named");
	if (winner < 0) {
		const candidates = slots.filter((slot) => slot.state !== "not-named").map(toCandidate(false));
		return { value: null, layer: "default", source: "default", candidates };
	}
	const won = slots[winner] as Slot;
	const candidates = slots.flatMap((slot, i) => (i === winner ? [] : [toCandidate(i > winner)(slot)]));
	return { value: won.value, layer: won.layer, source: won.source ?? "default", candidates };
}

/** Picks a field's winner with its layers put in the field's `ORDER`; a missing layer is not named. */
function pickIn(order: readonly Layer[], slots: Partial<Record<Layer, Slot>>): TraceEntry {
	return pick(order.map((layer) => slots[layer] ?? NOT_NAMED(layer)));
}

function toCandidate(below: boolean): (slot: Slot) => Candidate {
	return (slot) => {
		if (slot.state === "not-named") return { layer: slot.layer, value: null, source: null, outcome: "not-named" };
		if (slot.state === "named") return { layer: slot.layer, value: slot.value, source: slot.source, outcome: below ? "overridden" : "not-named" };
		return { layer: slot.layer, value: slot.value, source: slot.source, outcome: slot.state };
	};
}

/** A trace entry for a derived field (no candidates). */
function derived(value: unknown, layer: Layer, source: string): TraceEntry {
	return { value, layer, source, candidates: [] };
}

const NOTHING: TraceEntry = { value: null, layer: "default", source: "default", candidates: [] };

/** `path:line` / `settings:path:line` → the diagnostic position (column unknown: null). */
function positionOf(source: string | null): { file: string | null; line: number | null; column: number | null } {
	if (source === null || source === "bundled" || source === "request" || source === "parent" || source === "default") {
		return { file: null, line: null, column: null };
	}
	const bare = source.startsWith("settings:") ? source.slice("settings:".length) : source;
	const match = /^(.*):(\d+)$/.exec(bare);
	if (!match) return { file: bare, line: null, column: null };
	return { file: match[1] ?? bare, line: Number(match[2]), column: null };
}

/** Collects the resolution's own diagnostics per field, so they come out in field order. */
class FieldDiagnostics {
	private readonly byField = new Map<string, Diagnostic[]>();
	add(field: Field | "request", diagnostic: Diagnostic): void {
		const list = this.byField.get(field) ?? [];
		list.push(diagnostic);
		this.byField.set(field, list);
	}
	ordered(): Diagnostic[] {
		return [...CONFIG_FIELDS, "request" as const].flatMap((field) => this.byField.get(field) ?? []);
	}
}

/** Collects refusal reasons; the one reported is the first by `REFUSAL_PRIORITY`. */
const REFUSAL_PRIORITY: RefusalCode[] = ["resume-refused", "disabled-type", "bad-request", "persona-error", "model-unresolvable"];

class Refusals {
	private readonly reasons = new Map<RefusalCode, string[]>();
	add(code: RefusalCode, message: string): void {
		const list = this.reasons.get(code) ?? [];
		list.push(message);
		this.reasons.set(code, list);
	}
	first(): Refusal | null {
		for (const code of REFUSAL_PRIORITY) {
			const messages = this.reasons.get(code);
			if (messages) return { code, message: messages.join("; ") };
		}
		return null;
	}
}

/** Whether a request key is present (null and undefined both mean "not named"). */
function present(value: unknown): boolean {
	return value !== undefined && value !== null;
}

function show(value: unknown): string {
	return typeof value === "string" ? `"${value}"` : JSON.stringify(value) ?? String(value);
}

function toolNameHint(unavailable: readonly string[], universe: readonly string[]): string {
	const suggested = suggestToolNames(unavailable, universe);
	const exact = "tool names are exact and case-sensitive";
	if (suggested.length > 0) return `did you mean ${suggested.join(", ")}? (${exact})`;
	return `check the spelling (${exact}) or load the extension that provides it`;
}

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

function inside(child: string, parent: string): boolean {
	const rel = relative(parent, child);
	return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Body + referenced file, each trimmed, body first, one blank line between (spec 01). */
function joinTexts(body: string | null, fileText: string | null): string | null {
	const parts = [body?.trim() ?? "", fileText?.trim() ?? ""].filter((part) => part !== "");
	return parts.length === 0 ? null : parts.join("\n\n");
}

function fileProblem(ref: FileRef, message: string): string {
	return `"${ref.written}" (declared in ${ref.declaredIn}) cannot be read: ${message}`;
}

/** Resolves one spawn request. Never throws on bad input; every problem is a diagnostic or a refusal. */
export function resolve(input: ResolveInput): ResolveResult {
	if (present(input.request.resume)) return resolveResume(input);
	const { request, loaded, parent, models, reader } = input;
	const given = input.type ?? "general-purpose";
	const key = nameKey(given);
	const definition = loaded.definitions.get(key);
	if (!definition) {
		const types = enabledTypes(loaded);
		return {
			type: given,
			config: null,
			trace: {},
			diagnostics: [...loaded.diagnostics],
			refused: {
				code: "unknown-type",
				message: `unknown type "${given}"; enabled types: ${types.length > 0 ? types.join(", ") : "(none)"}`,
			},
			ignored: [],
		};
	}

	const diagnostics = new FieldDiagnostics();
	const refusals = new Refusals();
	const type = definition.name;
	if (!isEnabled(definition, loaded)) {
		const toggle = loaded.settings.toggle[key];
		const where = toggle ? `settings toggle (${toggle.source})` : `enabled: false (${definition.keys.enabled?.source ?? definition.path})`;
		refusals.add("disabled-type", `type "${type}" is disabled by ${where}`);
	}
	const role = loaded.roles.get(key) ?? null;
	const badRequest = (field: Field, requestKey: string, raw: unknown, valid: string): Slot => {
		const message = `request ${requestKey} ${show(raw)} is not valid; valid values: ${valid}`;
		refusals.add("bad-request", message);
		diagnostics.add(field, { severity: "error", file: null, line: null, column: null, code: "bad-value", message, hint: `use one of: ${valid}` });
		return { layer: "request", state: "invalid", value: raw, source: "request" };
	};
	/** The request slot of an enumerated field. */
	const enumRequest = <T extends string>(
		field: Field,
		requestKey: keyof SpawnRequest,
		normalize: (raw: unknown) => T | null,
		allowed: readonly string[],
		inheritable: boolean,
	): Slot => {
		const raw = request[requestKey];
		if (!present(raw) || (inheritable && isInherit(raw))) return NOT_NAMED("request");
		const value = normalize(raw);
		if (value === null) return badRequest(field, requestKey, raw, allowed.join(", ") + (inheritable ? ", inherit" : ""));
		return { layer: "request", state: "named", value, source: "request" };
	};
	const booleanRequest = (field: Field, requestKey: keyof SpawnRequest): Slot => {
		const raw = request[requestKey];
		if (!present(raw)) return NOT_NAMED("request");
		if (typeof raw !== "boolean") return badRequest(field, requestKey, raw, "true, false");
		return { layer: "request", state: "named", value: raw, source: "request" };
	};

	// persona: request > definition; request "none" drops the definition's.
	let personaRequest: Slot = NOT_NAMED("request");
	if (present(request.persona)) {
		const raw = request.persona;
		if (typeof raw !== "string" || raw.trim() === "") personaRequest = badRequest("persona", "persona", raw, "a persona name, none");
		else if (nameKey(raw) === "none") personaRequest = { layer: "request", state: "named", value: null, source: "request" };
		else personaRequest = { layer: "request", state: "named", value: raw.trim(), source: "request" };
	}
	// A definition's `none` is an explicit "no persona" too (it drops a lower scope's persona).
	const definitionPersona = loadedSlot("definition", definition.keys.persona, definition.invalid.persona);
	if (definitionPersona.state === "named" && typeof definitionPersona.value === "string" && nameKey(definitionPersona.value) === "none") {
		definitionPersona.value = null;
	}
	const personaTrace = pickIn(ORDER.persona, { request: personaRequest, definition: definitionPersona });
	let persona: Entry<"persona"> | null = null;
	let personaError: string | null = null;
	let personaInstructions: string | null = null;
	if (typeof personaTrace.value === "string") {
		const named = personaTrace.value;
		const by = personaTrace.layer === "request" ? "the request" : `the definition (${personaTrace.source})`;
		persona = loaded.personas.get(nameKey(named)) ?? null;
		if (!persona) {
			const known = [...loaded.personas.values()].map((entry) => entry.name).sort();
			personaError = `persona "${named}" named by ${by} was not found; known personas: ${known.length > 0 ? known.join(", ") : "(none)"}`;
		} else {
			personaTrace.value = persona.name;
			const ref = persona.keys.instructions_file?.value;
			let fileText: string | null = null;
			if (ref) {
				const read = reader.read(ref);
				if (read.ok) fileText = read.text;
				else personaError = `persona "${persona.name}": instructions_file ${fileProblem(ref, read.message)}`;
			}
			if (personaError === null) {
				personaInstructions = joinTexts(persona.body?.value ?? null, fileText);
				if (personaInstructions === null) personaError = `persona "${persona.name}" (${persona.path}) has no instructions: its body and instructions_file are empty`;
			}
		}
		if (personaError !== null) refusals.add("persona-error", personaError);
	}

	// role prompt: soft.
	let rolePrompt: string | null = null;
	let rolePromptWarning: string | null = null;
	if (role) {
		const ref = role.keys.prompt_file?.value;
		let fileText: string | null = null;
		if (ref) {
			const read = reader.read(ref);
			if (read.ok) fileText = read.text;
			else rolePromptWarning = `role "${role.name}": prompt_file ${fileProblem(ref, read.message)}; the role's body is used alone`;
		}
		rolePrompt = joinTexts(role.body?.value ?? null, fileText);
	}

	// model: request > role > persona > pin > definition > parent, each through the catalog.
	const modelSlot = (layer: Layer, raw: unknown, source: string | null): Slot => {
		if (typeof raw !== "string" || raw.trim() === "" || isInherit(raw)) return NOT_NAMED(layer);
		const found = models.lookup(raw.trim());
		if (found.ok) return { layer, state: "named", value: found.id, source };
		const closest = found.closest.length > 0 ? `; closest available: ${found.closest.join(", ")}` : "";
		const why = found.message.replace(/\.$/, "");
		if (layer === "request") {
			refusals.add("model-unresolvable", `request model ${show(raw)} cannot be used: ${why}${closest}`);
			diagnostics.add("model", {
				severity: "error",
				file: null,
				line: null,
				column: null,
				code: "model-unresolvable",
				message: `request model ${show(raw)}: ${why}${closest}`,
				hint: found.reason === "no-credentials" ? "log in to the provider, or name an available model" : "name provider/id of an available model, or omit model to let the lower layers choose",
			});
		} else {
			diagnostics.add("model", {
				severity: "warning",
				...positionOf(source),
				code: "model-unresolvable",
				message: `model ${show(raw)} (${layer}, reason: ${found.reason}) cannot be used: ${why}${closest}; the next layer fills`,
				hint: found.reason === "no-credentials" ? "log in to the provider or pick an available model" : "use provider/id of an available model",
			});
		}
		return { layer, state: "unresolvable", value: raw, source };
	};
	const loadedModel = (layer: Layer, named: Sourced<string> | undefined, rejected: Rejected | undefined): Slot =>
		named ? modelSlot(layer, named.value, named.source) : loadedSlot(layer, undefined, rejected);
	let requestModel: Slot = NOT_NAMED("request");
	if (present(request.model)) {
		if (typeof request.model !== "string" || request.model.trim() === "") requestModel = badRequest("model", "model", request.model, "provider/id or a name pi's --model accepts, inherit");
		else requestModel = modelSlot("request", request.model, "request");
	}
	const modelTrace = pickIn(ORDER.model, {
		request: requestModel,
		role: loadedModel("role", role?.keys.model, role?.invalid.model),
		persona: loadedModel("persona", persona?.keys.model, persona?.invalid.model),
		pin: loadedModel("pin", loaded.settings.models[key], loaded.settings.invalidPins.models[key]),
		definition: loadedModel("definition", definition.keys.model, definition.invalid.model),
		parent: parent.model === null ? NOT_NAMED("parent") : modelSlot("parent", parent.model, "parent"),
	});
	if (modelTrace.value === null) {
		refusals.add("model-unresolvable", "no layer names a usable model (request, role, persona, pin, definition, parent)");
	}
	const model = modelTrace.value as string | null;

	// reasoningEffort: same order; the parent always names a level.
	const thinkingTrace = pickIn(ORDER.reasoningEffort, {
		request: enumRequest("reasoningEffort", "thinking", normalizeThinking, THINKING_LEVELS, true),
		role: loadedSlot("role", role?.keys.thinking, role?.invalid.thinking),
		persona: loadedSlot("persona", persona?.keys.thinking, persona?.invalid.thinking),
		pin: loadedSlot("pin", loaded.settings.thinking[key], loaded.settings.invalidPins.thinking[key]),
		definition: loadedSlot("definition", definition.keys.thinking, definition.invalid.thinking),
		parent: { layer: "parent", state: "named", value: parent.thinking, source: "parent" },
	});
	const reasoningEffort = thinkingTrace.value as ThinkingLevel | null;
	thinkingTrace.applied = reasoningEffort !== null && model !== null ? models.clampThinking(model, reasoningEffort) : reasoningEffort;
	if (thinkingTrace.applied !== reasoningEffort && model !== null) {
		diagnostics.add("reasoningEffort", {
			severity: "warning",
			file: null,
			line: null,
			column: null,
			code: "thinking-clamped",
			message: `thinking "${reasoningEffort}" is not supported by ${model}; the child runs with "${thinkingTrace.applied}"`,
		});
	}

	// capabilityMode: request > role > definition — never a persona.
	const capabilityTrace = pickIn(ORDER.capabilityMode, {
		request: enumRequest("capabilityMode", "capability", normalizeCapability, CAPABILITY_MODES, false),
		role: loadedSlot("role", role?.keys.capability, role?.invalid.capability),
		definition: loadedSlot("definition", definition.keys.capability, definition.invalid.capability),
	});
	const capabilityMode = capabilityTrace.value as CapabilityMode | null;

	// isolation: request > role > persona > definition > default none.
	const isolationRequest = enumRequest("isolation", "isolation", normalizeIsolation, ISOLATION_MODES, false);
	const isolationTrace = pickIn(ORDER.isolation, {
		request: isolationRequest,
		role: loadedSlot("role", role?.keys.isolation, role?.invalid.isolation),
		persona: loadedSlot("persona", persona?.keys.isolation, persona?.invalid.isolation),
		definition: loadedSlot("definition", definition.keys.isolation, definition.invalid.isolation),
		default: { layer: "default", state: "named", value: "none", source: "default" },
	});
	const isolation = isolationTrace.value as IsolationMode;

	// maxTurns, runInBackground, inheritContext: request > definition > default.
	let maxTurnsRequest: Slot = NOT_NAMED("request");
	if (present(request.max_turns)) {
		const raw = request.max_turns;
		maxTurnsRequest =
			typeof raw === "number" && Number.isInteger(raw) && raw >= 2
				? { layer: "request", state: "named", value: raw, source: "request" }
				: badRequest("maxTurns", "max_turns", raw, "an integer ≥ 2");
	}
	const settingsDefault = <T>(value: Sourced<T> | null, fallback: T): Slot =>
		value ? { layer: "default", state: "named", value: value.value, source: value.source } : { layer: "default", state: "named", value: fallback, source: "default" };
	const maxTurnsTrace = pickIn(ORDER.maxTurns, {
		request: maxTurnsRequest,
		definition: loadedSlot("definition", definition.keys.max_turns, definition.invalid.max_turns),
		default: settingsDefault(loaded.settings.defaultMaxTurns, null),
	});
	const backgroundTrace = pickIn(ORDER.runInBackground, {
		request: booleanRequest("runInBackground", "run_in_background"),
		definition: loadedSlot("definition", definition.keys.run_in_background, definition.invalid.run_in_background),
		default: settingsDefault(loaded.settings.defaultBackground, false),
	});
	const inheritTrace = pickIn(ORDER.inheritContext, {
		request: booleanRequest("inheritContext", "inherit_context"),
		definition: loadedSlot("definition", definition.keys.inherit_context, definition.invalid.inherit_context),
		default: { layer: "default", state: "named", value: false, source: "default" },
	});

	// tools: the definition's selection (or the parent's active tools) in the universe, then the mode.
	const toolKinds = input.toolKinds ?? loaded.settings.toolKinds;
	const toolsKey = definition.keys.tools;
	const selection = selectTools(toolsKey ? toolsKey.value : parent.activeTools, parent.toolUniverse);
	if (selection.unavailable.length > 0) {
		diagnostics.add("tools", {
			severity: "warning",
			...positionOf(toolsKey ? toolsKey.source : null),
			code: "tool-unavailable",
			message: `${toolsKey ? `tools of "${type}"` : "the parent's active tools"} name${selection.unavailable.length === 1 ? "s" : ""} ${selection.unavailable.map(show).join(", ")}, not among the available tools (${parent.toolUniverse.join(", ")}); dropped`,
			hint: toolNameHint(selection.unavailable, parent.toolUniverse),
		});
	}
	const filtered = filterByCapability(selection.tools, capabilityMode, toolKinds);
	if (filtered.droppedUnknown.length > 0) {
		diagnostics.add("tools", {
			severity: "warning",
			...positionOf(capabilityTrace.source),
			code: "tool-dropped",
			message: `capability "${capabilityMode}" drops ${filtered.droppedUnknown.map(show).join(", ")}: ${filtered.droppedUnknown.length === 1 ? "its kind is" : "their kind is"} unknown`,
			hint: 'classify extension tools with settings "toolKinds" ({"pattern": "read" | "write" | "execute"})',
		});
	}
	const toolsTrace = toolsKey ? derived(filtered.tools, "definition", toolsKey.source) : derived(filtered.tools, "parent", "parent");

	// cwd: request (against the parent's cwd) or the parent's.
	let cwdTrace = derived(displayPath(parent.cwd, loaded.projectDir), "parent", "parent");
	if (present(request.cwd)) {
		const raw = request.cwd;
		if (typeof raw !== "string" || raw.trim() === "") {
			const slot = badRequest("cwd", "cwd", raw, "a directory path (relative to the parent's cwd)");
			cwdTrace = { ...cwdTrace, candidates: [toCandidate(false)(slot)] };
		} else {
			const absolute = resolvePath(parent.cwd, raw);
			const reject = (why: string, valid: string) => {
				const message = `request cwd ${show(raw)} ${why}`;
				refusals.add("bad-request", message);
				diagnostics.add("cwd", { severity: "error", file: null, line: null, column: null, code: "bad-value", message, hint: valid });
				cwdTrace = { ...cwdTrace, candidates: [{ layer: "request", value: raw, source: "request", outcome: "invalid" }] };
			};
			if (isolationRequest.state === "named" && isolationRequest.value === "worktree") {
				reject("cannot be combined with request isolation \"worktree\": the child's cwd is inside its own worktree", "drop cwd, or drop isolation: worktree");
			} else if (!reader.isDirectory(absolute)) {
				reject(`is not an existing directory (resolved to ${absolute})`, "name an existing directory, relative to the parent's cwd");
			} else if (isolation === "worktree" && typeof parent.repoRoot === "string" && !inside(absolute, parent.repoRoot)) {
				// No repository at all is the worktree feasibility check's to report (a warning in
				// explain; the spawn fails closed), not a bad request.
				reject(`(${absolute}) is outside the git repository, so it has no place in a worktree (isolation "worktree" from ${isolationTrace.layer})`, "name a directory inside the repository, or request isolation: none");
			} else {
				cwdTrace = derived(displayPath(absolute, loaded.projectDir), "request", "request");
			}
		}
	}

	const personaName = persona ? persona.name : typeof personaTrace.value === "string" ? personaTrace.value : null;
	// Derived role/persona fields point at the text's key, else at the entry (inline: its settings line).
	const personaSource = persona ? (persona.origin ?? persona.path) : personaTrace.source;
	const roleSource = role ? (role.origin ?? role.path) : "default";
	const personaLayerTrace = (value: unknown): TraceEntry =>
		value === null ? NOTHING : derived(value, "persona", persona ? (persona.body?.source ?? persona.keys.instructions_file?.source ?? personaSource) : personaSource);
	const roleTrace = (value: unknown): TraceEntry =>
		value === null || !role ? NOTHING : derived(value, "role", role.body?.source ?? role.keys.prompt_file?.source ?? roleSource);

	const config: EffectiveConfig = {
		model,
		reasoningEffort,
		capabilityMode,
		persona: personaName,
		personaInstructions,
		rolePrompt,
		rolePromptWarning,
		roleName: role ? role.name : null,
		personaError,
		isolation,
		tools: filtered.tools,
		maxTurns: maxTurnsTrace.value as number | null,
		runInBackground: backgroundTrace.value as boolean,
		inheritContext: inheritTrace.value as boolean,
		cwd: cwdTrace.value as string,
		standingInstructions: definition.body?.value ?? null,
		definition: { name: definition.name, source: definition.path },
	};
	const trace: Trace = {
		model: modelTrace,
		reasoningEffort: thinkingTrace,
		capabilityMode: capabilityTrace,
		persona: personaTrace,
		personaInstructions: personaLayerTrace(personaInstructions),
		rolePrompt: roleTrace(rolePrompt),
		rolePromptWarning: rolePromptWarning === null || !role ? NOTHING : derived(rolePromptWarning, "role", role.keys.prompt_file?.source ?? roleSource),
		roleName: role ? derived(role.name, "role", roleSource) : NOTHING,
		personaError: personaError === null ? NOTHING : derived(personaError, "persona", persona ? (persona.keys.instructions_file?.source ?? personaSource) : personaSource),
		isolation: isolationTrace,
		tools: toolsTrace,
		maxTurns: maxTurnsTrace,
		runInBackground: backgroundTrace,
		inheritContext: inheritTrace,
		cwd: cwdTrace,
		standingInstructions: derived(config.standingInstructions, "definition", definition.body?.source ?? definition.path),
		definition: derived(config.definition, "definition", definition.path),
	};
	return {
		type,
		config,
		trace,
		diagnostics: [...loaded.diagnostics, ...diagnostics.ordered()],
		refused: refusals.first(),
		ignored: [],
	};
}

/**
 * A resume reuses the stored config of the source run. An omitted type or persona means the
 * source's; a different one is refused; every other request key except prompt, description and
 * run_in_background is ignored and reported.
 */
function resolveResume(input: ResolveInput): ResolveResult {
	const { request, loaded } = input;
	const id = String(request.resume);
	const stored = input.resumeFrom ?? null;
	const refuse = (type: string, message: string, config: EffectiveConfig | null): ResolveResult => ({
		type,
		config,
		trace: {},
		diagnostics: [...loaded.diagnostics],
		refused: { code: "resume-refused", message },
		ignored: [],
	});
	if (!stored || stored.id !== id) return refuse(input.type ?? "general-purpose", `no finished run with id "${id}" to resume`, null);
	const storedType = stored.config.definition.name;
	if (stored.state === "running" || stored.state === "queued") {
		return refuse(storedType, `run "${id}" is ${stored.state}; wait for it to finish (get_subagent_result with wait: true) or steer it instead`, stored.config);
	}
	if (input.type !== null && nameKey(input.type) !== nameKey(storedType)) {
		return refuse(storedType, `run "${id}" is of type "${storedType}"; a resume cannot change it to "${input.type}" (omit subagent_type)`, stored.config);
	}
	if (present(request.persona)) {
		const raw = request.persona;
		const asked = typeof raw === "string" && nameKey(raw) !== "none" ? nameKey(raw) : null;
		const had = stored.config.persona === null ? null : nameKey(stored.config.persona);
		if (asked !== had) {
			return refuse(storedType, `run "${id}" ran with persona ${show(stored.config.persona)}; a resume cannot change it to ${show(raw)} (omit persona)`, stored.config);
		}
	}
	const config: EffectiveConfig = { ...stored.config };
	const diagnostics: Diagnostic[] = [];
	const ignored: IgnoredRequestValue[] = [];
	for (const requestKey of RESUME_IGNORED_KEYS) {
		const raw = request[requestKey];
		if (!present(raw)) continue;
		const reason = `a resume reuses the stored config of run "${id}"`;
		ignored.push({ key: requestKey, requested: raw, reason });
		diagnostics.push({ severity: "warning", file: null, line: null, column: null, code: "request-ignored", message: `request ${requestKey} ${show(raw)} is ignored: ${reason}` });
	}
	const source = `resume:${id}`;
	const trace: Partial<Trace> = {};
	for (const field of CONFIG_FIELDS) trace[field] = derived(config[field], "resume", source);
	let refused: Refusal | null = null;
	if (present(request.run_in_background)) {
		if (typeof request.run_in_background === "boolean") {
			config.runInBackground = request.run_in_background;
			trace.runInBackground = derived(config.runInBackground, "request", "request");
		} else {
			const message = `request run_in_background ${show(request.run_in_background)} is not valid; valid values: true, false`;
			refused = { code: "bad-request", message };
			diagnostics.push({ severity: "error", file: null, line: null, column: null, code: "bad-value", message });
		}
	}
	if (trace.reasoningEffort && config.reasoningEffort !== null) {
		trace.reasoningEffort.applied = config.model === null ? config.reasoningEffort : input.models.clampThinking(config.model, config.reasoningEffort);
	}
	return { type: storedType, config, trace, diagnostics: [...loaded.diagnostics, ...diagnostics], refused, ignored };
}
