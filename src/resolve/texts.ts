/**
 * The persona and the role prompt (spec 02 "Persona", "Role prompt"): which persona applies
 * (request > definition; `none` drops one), its instructions from body + `instructions_file` —
 * failing closed when it cannot be loaded — and the role's prompt from body + `prompt_file`,
 * which degrades softly to the body with a warning.
 */
import { nameKey } from "../core/values.ts";
import type { Entry, FileRef } from "../files/types.ts";
import type { ResolutionContext } from "./context.ts";
import { ORDER } from "./order.ts";
import { loadedSlot, NOT_NAMED, pickIn, present, type Slot } from "./slots.ts";
import type { TraceEntry } from "./types.ts";

/** Body + referenced file, each trimmed, body first, one blank line between (spec 01). */
function joinTexts(body: string | null, fileText: string | null): string | null {
	const parts = [body?.trim() ?? "", fileText?.trim() ?? ""].filter((part) => part !== "");
	return parts.length === 0 ? null : parts.join("\n\n");
}

function fileProblem(ref: FileRef, message: string): string {
	return `"${ref.written}" (declared in ${ref.declaredIn}) cannot be read: ${message}`;
}

/** The persona the spawn uses, its instructions, or why it cannot be loaded. */
export interface PersonaOutcome {
	trace: TraceEntry;
	persona: Entry<"persona"> | null;
	instructions: string | null;
	error: string | null;
}

function personaRequestSlot(ctx: ResolutionContext): Slot {
	const raw = ctx.request.persona;
	if (!present(raw)) return NOT_NAMED("request");
	if (typeof raw !== "string" || raw.trim() === "") return ctx.badRequest("persona", "persona", raw, "a persona name, none");
	if (nameKey(raw) === "none") return { layer: "request", state: "named", value: null, source: "request" };
	return { layer: "request", state: "named", value: raw.trim(), source: "request" };
}

/** Persona: request > definition; a `none` from either is an explicit "no persona". Fails closed. */
export function resolvePersona(ctx: ResolutionContext): PersonaOutcome {
	const { definition } = ctx;
	const { loaded, reader } = ctx.input;
	const definitionSlot = loadedSlot("definition", definition.keys.persona, definition.invalid.persona);
	// A definition's `none` drops a lower scope's persona.
	if (definitionSlot.state === "named" && typeof definitionSlot.value === "string" && nameKey(definitionSlot.value) === "none") {
		definitionSlot.value = null;
	}
	const trace = pickIn(ORDER.persona, { request: personaRequestSlot(ctx), definition: definitionSlot });
	if (typeof trace.value !== "string") return { trace, persona: null, instructions: null, error: null };
	const named = trace.value;
	const by = trace.layer === "request" ? "the request" : `the definition (${trace.source})`;
	const persona = loaded.personas.get(nameKey(named)) ?? null;
	let error: string | null = null;
	let instructions: string | null = null;
	if (!persona) {
		const known = [...loaded.personas.values()].map((entry) => entry.name).sort();
		error = `persona "${named}" named by ${by} was not found; known personas: ${known.length > 0 ? known.join(", ") : "(none)"}`;
	} else {
		trace.value = persona.name;
		const ref = persona.keys.instructions_file?.value;
		let fileText: string | null = null;
		if (ref) {
			const read = reader.read(ref);
			if (read.ok) fileText = read.text;
			else error = `persona "${persona.name}": instructions_file ${fileProblem(ref, read.message)}`;
		}
		if (error === null) {
			instructions = joinTexts(persona.body?.value ?? null, fileText);
			if (instructions === null) error = `persona "${persona.name}" (${persona.path}) has no instructions: its body and instructions_file are empty`;
		}
	}
	if (error !== null) ctx.refusals.add("persona-error", error);
	return { trace, persona, instructions, error };
}

/** The role's prompt and, when its `prompt_file` cannot be read, the warning (the body is used alone). */
export function resolveRolePrompt(ctx: ResolutionContext): { prompt: string | null; warning: string | null } {
	const role = ctx.role;
	if (!role) return { prompt: null, warning: null };
	const ref = role.keys.prompt_file?.value;
	let fileText: string | null = null;
	let warning: string | null = null;
	if (ref) {
		const read = ctx.input.reader.read(ref);
		if (read.ok) fileText = read.text;
		else warning = `role "${role.name}": prompt_file ${fileProblem(ref, read.message)}; the role's body is used alone`;
	}
	return { prompt: joinTexts(role.body?.value ?? null, fileText), warning };
}
