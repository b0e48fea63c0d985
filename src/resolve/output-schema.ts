/**
 * The structured result's schema (issue 13, ADR 0098): request `output_schema` > the definition's
 * `output_schema` / `output_schema_file` (the `ORDER` table). A request may name `none` to drop the
 * definition's. The winner must be a JSON Schema the validator accepts; a file is read through the
 * confined reader at every spawn. A schema that cannot be used refuses the spawn
 * (`output-schema-invalid`): the operator asked for a checked result, so there is no silent fallback.
 */
import { compileSchema } from "../core/json-schema.ts";
import type { OutputSchemaKey } from "../files/types.ts";
import type { ResolutionContext } from "./context.ts";
import { ORDER } from "./order.ts";
import { loadedSlot, NOT_NAMED, pickIn, present, type Slot } from "./slots.ts";
import type { TraceEntry } from "./types.ts";

function refuse(ctx: ResolutionContext, message: string): void {
	ctx.refusals.add("output-schema-invalid", message);
	ctx.diagnostics.add("outputSchema", { severity: "error", file: null, line: null, column: null, code: "output-schema-invalid", message, hint: "give a JSON Schema object, for example {\"type\": \"object\", \"properties\": {\"score\": {\"type\": \"integer\"}}}" });
}

function requestSlot(ctx: ResolutionContext): Slot {
	let raw = ctx.request.output_schema;
	if (!present(raw)) return NOT_NAMED("request");
	if (typeof raw === "string" && raw.trim().toLowerCase() === "none") return { layer: "request", state: "named", value: null, source: "request" };
	if (typeof raw === "string") {
		// Models often send an object as JSON text.
		try {
			raw = JSON.parse(raw);
		} catch {
			// compileSchema says what is wrong with it
		}
	}
	const compiled = compileSchema(raw);
	if (!compiled.ok) {
		refuse(ctx, `request output_schema is not a usable JSON Schema: ${compiled.message}`);
		return { layer: "request", state: "invalid", value: ctx.request.output_schema, source: "request" };
	}
	return { layer: "request", state: "named", value: raw, source: "request" };
}

/** The schema a definition's key names: inline, or read from its file and checked. */
function definitionSchema(ctx: ResolutionContext, key: OutputSchemaKey, source: string): Record<string, unknown> | null {
	if ("inline" in key) return key.inline;
	const ref = key.file;
	const where = `output_schema_file "${ref.written}" of definition "${ctx.definition.name}" (${source})`;
	const read = ctx.input.reader.read(ref);
	if (!read.ok) {
		refuse(ctx, `${where} cannot be read: ${read.message}`);
		return null;
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(read.text);
	} catch (error) {
		refuse(ctx, `${where} is not JSON: ${(error as Error).message}`);
		return null;
	}
	const compiled = compileSchema(parsed);
	if (!compiled.ok) {
		refuse(ctx, `${where} is not a usable JSON Schema: ${compiled.message}`);
		return null;
	}
	return parsed as Record<string, unknown>;
}

export function resolveOutputSchema(ctx: ResolutionContext): TraceEntry {
	const { definition } = ctx;
	const key = definition.keys.output_schema;
	// The slot shows the schema, or which file holds it: the file is read only when its schema is used.
	const shown = key ? { ...key, value: "inline" in key.value ? key.value.inline : { output_schema_file: key.value.file.written } } : undefined;
	const trace = pickIn(ORDER.outputSchema, { request: requestSlot(ctx), definition: loadedSlot("definition", shown, definition.invalid.output_schema) });
	if (trace.layer === "definition" && key) trace.value = definitionSchema(ctx, key.value, key.source);
	return trace;
}
